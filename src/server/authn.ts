/**
 * Authentication of kubelet API requests, as the kubelet's delegating authenticator builds it
 * (pkg/kubelet/apis/config authentication, k8s.io/apiserver authenticatorfactory): a client
 * certificate the TLS layer verified against --client-ca-file (user = CommonName, groups =
 * Organizations), else a bearer token the API server's TokenReview accepts (answers cached for
 * cacheTTL), else, only when enabled, the anonymous user. An authenticated user gets the group
 * system:authenticated. A certificate that does not verify is not an identity; the request goes
 * on to the other methods, and is 401 when none succeeds.
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
  const reviewToken = async (token: string, signal: AbortSignal): Promise<UserInfo | undefined> => {
    const webhook = opts.webhook!;
    // Keyed by a digest, so the cache holds no usable token.
    const key = createHash("sha256").update(token).digest("hex");
    const cached = cache.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const review = await webhook.client.create<TokenReview>(
      "/apis/authentication.k8s.io/v1/tokenreviews",
      { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } },
      { signal },
    );
    const s = review.status;
    const user = s?.authenticated && s.user?.username ? { name: s.user.username, uid: s.user.uid, groups: s.user.groups ?? [], extra: s.user.extra } : null;
    if (!user && s?.error) opts.log.debug("Bearer token rejected by the TokenReview", { err: s.error }, 2);
    // The kubelet's token cache keeps both answers for cacheTTL.
    cache.set(key, user, webhook.cacheTtlMs);
    return user ?? undefined;
  };

  return async (req, signal) => {
    if (opts.x509 && req.cert?.verified && req.cert.commonName) {
      return withAuthenticatedGroup({ name: req.cert.commonName, groups: [...req.cert.organizations] });
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.authorization ?? "");
    if (bearer && opts.webhook) {
      try {
        const user = await reviewToken(bearer[1], signal);
        if (user) return withAuthenticatedGroup(user);
      } catch (err) {
        // The kubelet answers 401 when the authenticator fails, and logs why.
        opts.log.error("Unable to authenticate the request due to an error", { err });
        return undefined;
      }
    }
    return opts.anonymous ? ANONYMOUS : undefined;
  };
}
