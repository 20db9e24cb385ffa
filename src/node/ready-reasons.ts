/**
 * Why the Node is not Ready, in the kubelet's order (kubelet.go runtimeState errors as the ready
 * condition setter reads them): the runtime's first error (the runtime sync), the PLEG's health,
 * the runtime's other errors (the runtime condition), the network's, then node shutdown.
 */
export interface ReadinessErrors {
  runtime: string[];
  network: string[];
  pleg: { ok: boolean; message?: string };
  /** "node is shutting down" while graceful node shutdown stops the pods. */
  shutdown?: string;
}

export function notReadyReasons(e: ReadinessErrors): string[] {
  const pleg = e.pleg.ok ? [] : [`PLEG is not healthy: ${e.pleg.message ?? ""}`];
  return [...e.runtime.slice(0, 1), ...pleg, ...e.runtime.slice(1), ...e.network, ...(e.shutdown ? [e.shutdown] : [])];
}
