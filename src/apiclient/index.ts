/**
 * The Kubernetes API client: kubeconfig loading, a rate-limited JSON client on Bun's fetch, one
 * ApiError, and the reflector (list + watch) that API-driven sources build on. Depends on lib only.
 */
export {
  createApiClient,
  DEFAULT_QPS,
  DEFAULT_BURST,
  type ApiClient,
  type ApiClientOptions,
  type DeleteOptions,
  type ListOptions,
  type ObjectList,
  type PatchType,
  type Query,
  type RequestOptions,
  type WatchEvent,
  type WatchOptions,
} from "./client.ts";
export { loadKubeconfig, parseKubeconfig, KubeconfigError, type ApiClientConfig, type CredentialSource, type ExecConfig, type PemSource } from "./kubeconfig.ts";
export { CredentialError, type ExecRunner, type ExecResult } from "./credentials.ts";
export {
  ApiError,
  isApiError,
  isNotFound,
  isAlreadyExists,
  isConflict,
  isResourceExpired,
  isTooManyRequests,
  isUnreachable,
  type ApiErrorReason,
} from "./errors.ts";
export { createRateLimiter, TokenBucket, type RateLimiter } from "./rate-limiter.ts";
export { WatchDecoder, WatchDecodeError, type RawWatchEvent, type WatchEventType } from "./watch-decoder.ts";
export { createReflector, ReflectorBackoff, type Reflector, type ReflectorOptions } from "./reflector.ts";
export { ObjectStore, objectKey, type KubeObject, type ReflectorStore } from "./store.ts";
export { resourcePath, type ResourceRef } from "./paths.ts";
