/**
 * The Kubernetes API client: kubeconfig loading, a rate-limited JSON client on Bun's fetch, one
 * ApiError, and the reflector (list + watch into a store) that API-driven sources build on.
 * Depends on lib only.
 */
export { createApiClient, restClientLimits } from "./client.ts";
export type { ApiClient, ListOptions, ObjectList, PatchType, RequestOptions, WatchEvent, WatchOptions } from "./types.ts";
export { loadKubeconfig, KubeconfigError, type ApiClientConfig } from "./kubeconfig.ts";
export { ApiError, isAlreadyExists, isConflict, isNotFound, isResourceExpired, isUnreachable, type ApiErrorReason } from "./errors.ts";
export { createReflector, type Reflector, type ReflectorOptions } from "./reflector.ts";
export { ObjectStore, type KubeObject, type ReflectorStore } from "./store.ts";
export { resourcePath } from "./paths.ts";
