/**
 * The kubelet's service account token manager (pkg/kubelet/token): tokens from the TokenRequest
 * API cached per (service account, namespace, audience, expiration, bound pod), handed out
 * again until they need a refresh, which is when 80 % of their life has passed or they are 24
 * hours old (each less a jitter of up to 10 s). A refresh that fails while the cached token is
 * still valid keeps the cached token; an expired one is dropped by cleanup.
 */
import type { Clock, Logger } from "../lib/index.ts";

const MAX_TTL_MS = 24 * 60 * 60 * 1000;
const MAX_JITTER_S = 10;

export interface TokenRequestSpec {
  audiences: string[];
  expirationSeconds: number;
  boundObjectRef: { apiVersion: "v1"; kind: "Pod"; name: string; uid: string };
}

/** A TokenRequest's status: the token and when it expires (ms since the epoch). */
export interface IssuedToken {
  token: string;
  expiresAt: number;
}

/** What the manager needs from the API: POST serviceaccounts/<name>/token. */
export type RequestToken = (namespace: string, serviceAccount: string, spec: TokenRequestSpec, signal?: AbortSignal) => Promise<IssuedToken>;

interface Cached {
  spec: TokenRequestSpec;
  issued: IssuedToken;
}

export interface TokenManager {
  getServiceAccountToken(namespace: string, serviceAccount: string, spec: TokenRequestSpec, signal?: AbortSignal): Promise<IssuedToken>;
  /** Drops the cached tokens bound to a pod (the kubelet's DeleteServiceAccountToken). */
  deleteServiceAccountToken(podUID: string): void;
  /** Drops expired tokens (the kubelet runs it every minute). */
  cleanup(): void;
}

/** requiresRefresh: older than 24 h, or past 80 % of its life, each less the jitter. */
export function requiresRefresh(nowMs: number, spec: TokenRequestSpec, issued: IssuedToken, jitterS: number): boolean {
  const issuedAt = issued.expiresAt - spec.expirationSeconds * 1000;
  const jitterMs = Math.floor(jitterS) * 1000;
  if (nowMs > issuedAt + MAX_TTL_MS - jitterMs) return true;
  return nowMs > issued.expiresAt - Math.floor((spec.expirationSeconds * 20) / 100) * 1000 - jitterMs;
}

function cacheKey(namespace: string, serviceAccount: string, spec: TokenRequestSpec): string {
  return JSON.stringify([serviceAccount, namespace, spec.audiences, spec.expirationSeconds, spec.boundObjectRef.uid]);
}

export function createTokenManager(deps: { request: RequestToken; clock: Clock; random: () => number; log: Logger }): TokenManager {
  const cache = new Map<string, Cached>();
  return {
    async getServiceAccountToken(namespace, serviceAccount, spec, signal) {
      const key = cacheKey(namespace, serviceAccount, spec);
      const cached = cache.get(key);
      const now = deps.clock.now();
      if (cached && !requiresRefresh(now, cached.spec, cached.issued, deps.random() * MAX_JITTER_S)) return cached.issued;
      try {
        const issued = await deps.request(namespace, serviceAccount, spec, signal);
        cache.set(key, { spec, issued });
        return issued;
      } catch (err) {
        if (cached && now < cached.issued.expiresAt) {
          deps.log.error("Couldn't update token; the cached one is still valid", { cacheKey: `"${serviceAccount}"/"${namespace}"`, err });
          return cached.issued;
        }
        throw err;
      }
    },
    deleteServiceAccountToken(podUID) {
      for (const [key, c] of cache) if (c.spec.boundObjectRef.uid === podUID) cache.delete(key);
    },
    cleanup() {
      const now = deps.clock.now();
      for (const [key, c] of cache) if (now >= c.issued.expiresAt) cache.delete(key);
    },
  };
}
