// Pod certificates (KEP-4317) and the trust bundles pods project: the node's ClusterTrustBundles
// (one lazy reflector, anchors normalised as the kubelet's), and the key pairs, PodCertificateRequests
// and refreshes of podCertificate projections. The projected volume plugin in volumes/ reads both
// through its own narrow interfaces; the wiring hands them over.
export { createTrustBundles } from "./trust-bundles.ts";
export { createPodCertificates } from "./pod-certificates.ts";
