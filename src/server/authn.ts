/**
 * Authentication of kubelet API requests, as the kubelet's delegating authenticator builds it
 * (pkg/kubelet/apis/config authentication, k8s.io/apiserver authenticatorfactory): a client
 * certificate the TLS layer verified against --client-ca-file (user = CommonName, groups =
 * Organizations), else a bearer token the API server's TokenReview accepts (answers cached for
 * cacheTTL), else, only when enabled, the anonymous user. An authenticated user gets the group
 * system:authenticated. Anonymous applies only to a request that presented no credentials: a
 * certificate that does not verify, or a bearer token the TokenReview rejects, is a 401 even with
 * anonymous auth on (the kubelet's union authenticator fails on such an error before it reaches
 * the anonymous one). Concurrent requests with one token share one TokenReview.
 */
import { createHash } from "node:crypto";
import type { Clock, Logger } from "../lib/index.ts";
import { TtlCache } from "./ttl-cache.ts";

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** What the TLS layer tells about the client's certificate. */
export interface PeerCertificate {
  /** The chain verified against the client CA bundle. */
  verified: boolean;
  commonName?: string;
  organizations: string[];
}

export interface AuthnRequest {
  cert?: PeerCertificate;
  authorization?: string;
}

/** The narrow API client this needs: POST of one object (TokenReview). */
export interface ReviewClient {
  create<T>(path: string, body: T, opts?: { signal?: AbortSignal }): Promise<T>;
}

export interface AuthenticatorOptions {
  /** Client certificates are checked only when a client CA was given. */
  x509: boolean;
  /** TokenReview through this client; undefined = bearer tokens are not accepted. */
  webhook?: { client: ReviewClient; cacheTtlMs: number };
  anonymous: boolean;
  clock: Clock;
  log: Logger;
}

/** undefined = not authenticated (401). */
export type Authenticator = (req: AuthnRequest, signal: AbortSignal) => Promise<UserInfo | undefined>;

const ANONYMOUS: UserInfo = { name: "system:anonymous", groups: ["system:unauthenticated"] };
const AUTHENTICATED = "system:authenticated";

interface TokenReview {
  apiVersion: "authentication.k8s.io/v1";
  kind: "TokenReview";
  spec: { token: string };
  status?: { authenticated?: boolean; user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> }; error?: string };
}

function withAuthenticatedGroup(u: UserInfo): UserInfo {
  return u.groups.includes(AUTHENTICATED) ? u : { ...u, groups: [...u.groups, AUTHENTICATED] };
}

export function createAuthenticator(opts: AuthenticatorOptions): Authenticator {
  const cache = new TtlCache<UserInfo | null>(opts.clock);
  // Reviews under way, by token digest: a burst of requests with one token makes one review.
  const inFlight = new Map<string, Promise<UserInfo | null>>();
  const reviewToken = async (token: string, signal: AbortSignal): Promise<UserInfo | undefined> => {
    // Keyed by a digest, so neither map holds a usable token.
    const key = createHash("sha256").update(token).digest("hex");
    const cached = cache.get(key);
    if (cached !== undefined) return cached ?? undefined;
    let review = inFlight.get(key);
    if (!review) {
      // Not tied to the first asker's signal: the others wait on it too; the client's timeout bounds it.
      review = runReview(key, token).finally(() => inFlight.delete(key));
      inFlight.set(key, review);
    }
    signal.throwIfAborted();
    return (await review) ?? undefined;
  };
  const runReview = async (key: string, token: string): Promise<UserInfo | null> => {
    const webhook = opts.webhook!;
    const review = await webhook.client.create<TokenReview>(
      "/apis/authentication.k8s.io/v1/tokenreviews",
      { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } },
    );
    const s = review.status;
    const user = s?.authenticated && s.user?.username ? { name: s.user.username, uid: s.user.uid, groups: s.user.groups ?? [], extra: s.user.extra } : null;
    if (!user && s?.error) opts.log.debug("Bearer token rejected by the TokenReview", { err: s.error }, 2);
    // The kubelet's token cache keeps both answers for cacheTTL.
    cache.set(key, user, webhook.cacheTtlMs);
    return user;
  };

  return async (req, signal) => {
    // What the client presented that one of the enabled methods reads.
    let presented = false;
    if (opts.x509 && req.cert) {
      if (req.cert.verified && req.cert.commonName) {
        return withAuthenticatedGroup({ name: req.cert.commonName, groups: [...req.cert.organizations] });
      }
      presented = true;
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.authorization ?? "");
    if (bearer && opts.webhook) {
      presented = true;
      try {
        const user = await reviewToken(bearer[1], signal);
        if (user) return withAuthenticatedGroup(user);
      } catch (err) {
        // The kubelet answers 401 when the authenticator fails, and logs why.
        opts.log.error("Unable to authenticate the request due to an error", { err: err instanceof Error ? err.message : String(err) });
        return undefined;
      }
    }
    if (presented) {
      opts.log.debug("Unable to authenticate the request: the credentials presented were not accepted", { x509: req.cert !== undefined, token: bearer !== null }, 4);
      return undefined;
    }
    return opts.anonymous ? ANONYMOUS : undefined;
  };
}
