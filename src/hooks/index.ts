// Lifecycle hook runners (the kubelet's pkg/kubelet/lifecycle): postStart and preStop handlers run
// through CRI ExecSync, an HTTP GET, or a sleep on the injected clock.
export { runHandler } from "./handlers.ts";
