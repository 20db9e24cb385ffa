/**
 * The node's ClusterTrustBundles (the kubelet's LazyInformerManager): nothing is read until a pod
 * first projects a bundle; then the served version of the API is found (v1, else v1beta1, else
 * v1alpha1, by discovery) and one reflector lists and watches every bundle for the whole node,
 * waited on for up to 10 s. Each read is answered from that store, so a changed, added or deleted
 * bundle reaches the pods' files at their next volume set-up without any request of its own. With
 * no version served, projections fail as on a kubelet in static mode. Errors are the kubelet's.
 */
import type { LabelSelector } from "../api/index.ts";
import { createReflector, isNotFound, type ApiClient, type KubeObject, type Reflector, type ReflectorStore } from "../apiclient/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import { bundlesOfSigner, normalizeTrustAnchors, type ClusterTrustBundle } from "./trust-anchors.ts";

const GROUP = "certificates.k8s.io";
const VERSIONS = ["v1", "v1beta1", "v1alpha1"];
const SYNC_WAIT_MS = 10_000;

const NOT_SUPPORTED_STATIC = "ClusterTrustBundle projection is not supported in static kubelet mode";

export interface TrustBundles {
  /** GetTrustAnchorsByName: the named bundle's anchors; empty for a missing one when allowMissing. */
  trustAnchorsByName(name: string, allowMissing: boolean, signal?: AbortSignal): Promise<Uint8Array>;
  /** GetTrustAnchorsBySigner: the anchors of the signer's bundles the selector matches. */
  trustAnchorsBySigner(signerName: string, labelSelector: LabelSelector | undefined, allowMissing: boolean, signal?: AbortSignal): Promise<Uint8Array>;
  /** Keeps the reflector (once a pod asked for a bundle) going until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
}

export interface TrustBundlesDeps {
  client: Pick<ApiClient, "get" | "list" | "watch">;
  clock: Clock;
  random: () => number;
  log: Logger;
}

type Bundle = ClusterTrustBundle & KubeObject;

/** The informer's store: bundles by name. */
class BundleStore implements ReflectorStore<Bundle> {
  readonly items = new Map<string, Bundle>();
  /** Resolved by the first list. */
  readonly listed = Promise.withResolvers<void>();
  replace(items: Bundle[]): void {
    this.items.clear();
    for (const b of items) this.add(b);
    this.listed.resolve();
  }
  add(b: Bundle): void {
    this.items.set(b.metadata?.name ?? "", b);
  }
  update(b: Bundle): void {
    this.add(b);
  }
  delete(b: Bundle): void {
    this.items.delete(b.metadata?.name ?? "");
  }
}

type Manager = { kind: "informer"; reflector: Reflector; store: BundleStore } | { kind: "noop" };

export function createTrustBundles(deps: TrustBundlesDeps): TrustBundles {
  const { client, clock, log } = deps;
  // The order of anchors in a file is fixed for the life of this bunlet (trust-anchors.ts).
  const seed = deps.random().toString(36);
  let manager: Manager | undefined;
  let starting: Promise<Manager> | undefined;
  const stop = new AbortController();
  const running: Promise<void>[] = [];

  async function served(version: string, signal?: AbortSignal): Promise<boolean> {
    try {
      const list = await client.get<{ resources?: { name: string }[] }>(`/apis/${GROUP}/${version}`, { signal });
      return (list.resources ?? []).some((r) => r.name === "clustertrustbundles");
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  async function start(signal?: AbortSignal): Promise<Manager> {
    let version: string | undefined;
    for (const v of VERSIONS) {
      try {
        if (await served(v, signal)) {
          version = v;
          break;
        }
      } catch (err) {
        throw new Error(`failed to ensure informer manager for ClusterTrustBundles: failed to determine which informer manager to choose: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (!version) {
      log.info("No version of the ClusterTrustBundle API was found, the ClusterTrustBundle informer won't be started");
      return { kind: "noop" };
    }
    const store = new BundleStore();
    const reflector = createReflector<Bundle>({ client, path: `/apis/${GROUP}/${version}/clustertrustbundles`, store, clock, random: deps.random, log, name: `*${version}.ClusterTrustBundle` });
    running.push(reflector.run(stop.signal));
    log.info("Started ClusterTrustBundle informer", { apiGroup: `${GROUP}/${version}` });
    // A read will follow at once: give the first list up to 10 s, then go on in the background.
    await new Promise<void>((resolve) => {
      const timer = clock.setTimer(SYNC_WAIT_MS, resolve);
      void store.listed.promise.then(() => (timer.cancel(), resolve()));
    });
    log.info(reflector.hasSynced() ? "ClusterTrustBundle informer synced" : "ClusterTrustBundle informer not synced, continuing to attempt in background");
    return { kind: "informer", reflector, store };
  }

  /** ensureManagerSet: one start at a time; a failed start is tried again by the next read. */
  async function ensureManager(signal?: AbortSignal): Promise<Manager> {
    if (manager) return manager;
    starting ??= start(signal).finally(() => {
      starting = undefined;
    });
    manager = await starting;
    return manager;
  }

  async function synced(signal?: AbortSignal): Promise<BundleStore> {
    const m = await ensureManager(signal);
    if (m.kind === "noop") throw new Error(NOT_SUPPORTED_STATIC);
    if (!m.reflector.hasSynced()) throw new Error("ClusterTrustBundle informer has not yet synced");
    return m.store;
  }

  return {
    async trustAnchorsByName(name, allowMissing, signal) {
      const store = await synced(signal);
      const bundle = store.items.get(name);
      if (!bundle) {
        if (allowMissing) return new Uint8Array(0);
        throw new Error(`while getting ClusterTrustBundle: clustertrustbundle.${GROUP} ${JSON.stringify(name)} not found`);
      }
      return normalizeTrustAnchors([bundle], seed);
    },
    async trustAnchorsBySigner(signerName, labelSelector, allowMissing, signal) {
      const store = await synced(signal);
      const bundles = bundlesOfSigner([...store.items.values()], signerName, labelSelector);
      if (bundles.length === 0) {
        if (allowMissing) return new Uint8Array(0);
        throw new Error("combination of signerName and labelSelector matched zero ClusterTrustBundles");
      }
      return normalizeTrustAnchors(bundles, seed);
    },
    async run(signal) {
      if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      stop.abort();
      await Promise.all(running);
    },
  };
}
