/**
 * The trust anchors a clusterTrustBundle projection writes (pkg/kubelet/clustertrustbundle): the
 * one bundle named, or every bundle of the signer its label selector picks, normalised as the
 * kubelet does: every PEM block of every bundle, de-duplicated by its DER bytes, headers and
 * inter-block text dropped, each written back as a bare CERTIFICATE block.
 *
 * Order: the kubelet sorts the certificates and then shuffles them at each normalisation (its
 * comment asks for "a stable ordering that changes each time Kubelet restarts"; the file may
 * change order every five minutes as its cache expires). bunlet gives exactly that stable order:
 * the sorted certificates ordered by a hash keyed with a seed drawn when it starts, so a file is
 * rewritten only when the set of certificates changes.
 */
import { createHash } from "node:crypto";
import type { LabelSelector } from "../api/index.ts";
import { decodeAllPem, encodePem } from "./pem.ts";
import { labelSelectorAsSelector, selectorMatches, selectorString } from "./selector.ts";

/** certificates.k8s.io ClusterTrustBundle (v1, v1beta1 and v1alpha1 have the same fields). */
export interface ClusterTrustBundle {
  metadata?: { name?: string; labels?: Record<string, string>; resourceVersion?: string };
  spec: { signerName?: string; trustBundle: string };
}

const MAX_LABEL_SELECTOR_LENGTH = 100 * 1024;

/** normalizeTrustAnchors: de-duplicated DER certificates, in the run's order, as PEM. */
export function normalizeTrustAnchors(bundles: readonly ClusterTrustBundle[], seed: string): Uint8Array {
  const unique = new Map<string, Uint8Array>();
  for (const b of bundles) {
    for (const block of decodeAllPem(b.spec.trustBundle ?? "")) unique.set(Buffer.from(block.bytes).toString("latin1"), block.bytes);
  }
  const rank = (der: string) => createHash("sha256").update(seed).update(der, "latin1").digest("hex");
  const ordered = [...unique.keys()].sort().map((der) => ({ der, rank: rank(der) }));
  ordered.sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0));
  return new TextEncoder().encode(ordered.map(({ der }) => encodePem("CERTIFICATE", unique.get(der)!)).join(""));
}

/** The bundles GetTrustAnchorsBySigner unifies: those the selector matches whose signerName is signerName. */
export function bundlesOfSigner(all: readonly ClusterTrustBundle[], signerName: string, labelSelector: LabelSelector | undefined): ClusterTrustBundle[] {
  let selector: ReturnType<typeof labelSelectorAsSelector>;
  try {
    selector = labelSelectorAsSelector(labelSelector);
  } catch (err) {
    throw new Error(`while parsing label selector: ${err instanceof Error ? err.message : String(err)}`);
  }
  const length = selectorString(selector).length;
  if (length > MAX_LABEL_SELECTOR_LENGTH) throw new Error(`label selector length (${length}) is larger than ${MAX_LABEL_SELECTOR_LENGTH}`);
  return all.filter((b) => selectorMatches(selector, b.metadata?.labels) && (b.spec.signerName ?? "") === signerName);
}
