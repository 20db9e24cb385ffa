// Volumes: the volume manager (hostPath, emptyDir, configMap, secret, downwardAPI, projected),
// the AtomicWriter behind it, and the service account token manager.
export { createVolumeManager, type VolumeManager, type VolumeObjects } from "./manager.ts";
export { createTokenManager, type IssuedToken, type TokenManager, type TokenRequestSpec } from "./tokens.ts";
