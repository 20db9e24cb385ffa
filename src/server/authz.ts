/**
 * Authorization of kubelet API requests: Webhook asks the API server with a SubjectAccessReview
 * (answers cached: allowed for cacheAuthorizedTTL, denied for cacheUnauthorizedTTL, as the
 * kubelet's webhook authorizer); AlwaysAllow allows every authenticated request.
 */
import type { Clock } from "../lib/index.ts";
import type { ReviewClient, UserInfo } from "./authn.ts";
import type { RequestAttributes } from "./request-attributes.ts";
import { TtlCache } from "./ttl-cache.ts";

export type Authorizer = (user: UserInfo, attrs: RequestAttributes, signal: AbortSignal) => Promise<boolean>;

export interface WebhookAuthorizerOptions {
  client: ReviewClient;
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  clock: Clock;
}

interface SubjectAccessReview {
  apiVersion: "authorization.k8s.io/v1";
  kind: "SubjectAccessReview";
  spec: {
    user: string;
    uid?: string;
    groups: string[];
    extra?: Record<string, string[]>;
    resourceAttributes: { namespace: string; verb: string; group: string; version: string; resource: string; subresource: string; name: string };
  };
  status?: { allowed?: boolean; denied?: boolean; reason?: string };
}

export const alwaysAllow: Authorizer = async () => true;

export function createWebhookAuthorizer(opts: WebhookAuthorizerOptions): Authorizer {
  const cache = new TtlCache<boolean>(opts.clock);
  return async (user, attrs, signal) => {
    const spec: SubjectAccessReview["spec"] = {
      user: user.name,
      ...(user.uid && { uid: user.uid }),
      groups: user.groups,
      ...(user.extra && { extra: user.extra }),
      resourceAttributes: { namespace: "", verb: attrs.verb, group: "", version: attrs.apiVersion, resource: attrs.resource, subresource: attrs.subresource, name: attrs.name },
    };
    const key = JSON.stringify(spec);
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const review = await opts.client.create<SubjectAccessReview>(
      "/apis/authorization.k8s.io/v1/subjectaccessreviews",
      { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec },
      { signal },
    );
    const allowed = review.status?.allowed === true && review.status.denied !== true;
    cache.set(key, allowed, allowed ? opts.authorizedTtlMs : opts.unauthorizedTtlMs);
    return allowed;
  };
}
