/**
 * Service account tokens for projected volumes (the kubelet's pkg/kubelet/token): issued by the
 * TokenRequest API (serviceaccounts/<name>/token), kept and renewed by the volumes' token
 * manager, through the checkpoint when there is one.
 */
import { resourcePath, type ApiClient } from "../apiclient/index.ts";
import type { Checkpoint } from "../checkpoint/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import { createTokenManager, type IssuedToken, type TokenManager, type TokenRequestSpec } from "../volumes/index.ts";
import { throughCheckpoint } from "./through-checkpoint.ts";

interface TokenRequestStatus {
  status: { token: string; expirationTimestamp: string };
}

/** The token manager's cache key of a token request (one per pod, service account, audience, expiry). */
function tokenKey(namespace: string, serviceAccount: string, spec: TokenRequestSpec): string {
  return JSON.stringify([serviceAccount, namespace, spec.audiences, spec.expirationSeconds, spec.boundObjectRef.uid]);
}

export function createApiTokenManager(
  client: Pick<ApiClient, "create">,
  checkpoint: Checkpoint | undefined,
  deps: { clock: Clock; random: () => number; log: Logger },
): TokenManager {
  const { log } = deps;
  async function requestToken(namespace: string, serviceAccount: string, spec: TokenRequestSpec, signal?: AbortSignal): Promise<IssuedToken> {
    const path = resourcePath({ apiVersion: "v1", resource: "serviceaccounts", namespace, name: serviceAccount, subresource: "token" });
    const body = { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec };
    const tr = await client.create<unknown>(path, body, { signal });
    const { status } = tr as TokenRequestStatus;
    return { token: status.token, expiresAt: Date.parse(status.expirationTimestamp) };
  }

  return createTokenManager({
    ...deps,
    async request(namespace, serviceAccount, spec, signal) {
      const key = tokenKey(namespace, serviceAccount, spec);
      const issued = await throughCheckpoint(
        checkpoint,
        {
          read: () => requestToken(namespace, serviceAccount, spec, signal),
          kept: () => checkpoint?.token(key),
          record: (t) => t && checkpoint?.recordToken({ key, podUID: spec.boundObjectRef.uid, token: t.token, expiresAt: t.expiresAt }),
        },
        { serviceAccount: `${namespace}/${serviceAccount}` },
        log,
      );
      if (!issued) throw new Error(`no token issued for service account ${namespace}/${serviceAccount}`);
      return { token: issued.token, expiresAt: issued.expiresAt };
    },
  });
}
