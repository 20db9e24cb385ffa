/**
 * The pod's pull credentials for one image (kubelet_pods.go getPullSecretsForPod, then
 * image_manager.go makeLookupPullCredentialsFunc): the Secrets named in spec.imagePullSecrets
 * (where the ServiceAccount admission plugin has put the service account's too) are read from the
 * apiserver, made into a keyring, and looked up by the image's repository. A Secret that cannot be
 * read is left out and named, so a failed pull can say so, as the kubelet's
 * FailedToRetrieveImagePullSecret event does. Nothing here logs a credential.
 */
import { podRef, type Pod, type Secret } from "../api/index.ts";
import type { Logger } from "../lib/index.ts";
import { keyringFromSecrets, type RegistryAuth } from "./keyring.ts";

/** Reads a Secret; throws when it cannot (not found, forbidden, no API client). */
export type PullSecretGetter = (namespace: string, name: string, signal?: AbortSignal) => Promise<Secret>;

export interface PullCredentials {
  /** To try in order; [] = pull anonymously. */
  credentials: RegistryAuth[];
  /** The pull secrets that could not be read. */
  missing: string[];
}

export async function pullCredentialsFor(pod: Pod, repository: string, getSecret: PullSecretGetter | undefined, log: Logger, signal?: AbortSignal): Promise<PullCredentials> {
  const namespace = pod.metadata.namespace ?? "";
  const secrets: Secret[] = [];
  const missing: string[] = [];
  for (const { name } of pod.spec.imagePullSecrets ?? []) {
    // API validation lets entries with an empty name through; the kubelet skips them.
    if (!name) continue;
    try {
      if (!getSecret) throw new Error("no API client (bunlet runs standalone)");
      secrets.push(await getSecret(namespace, name, signal));
    } catch (err) {
      if (signal?.aborted) throw err;
      log.info("Unable to retrieve pull secret, the image pull may not succeed.", { pod: podRef(pod), secret: { name, namespace }, err });
      missing.push(name);
    }
  }
  return { credentials: keyringFromSecrets(secrets).lookup(repository), missing };
}
