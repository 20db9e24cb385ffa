/**
 * Container log rotation (the kubelet's container log manager) and bunlet's node-wide cap on pod
 * logs. The wiring builds one ContainerLogManager over the CRI client and runs it until shutdown.
 */
export { ContainerLogManager } from "./manager.ts";
