/**
 * The /healthz checks pod sync adds besides the server's syncloop check: the PLEG and the
 * container runtime. The HTTP server owns the endpoint; these only read state.
 */
import type { HealthCheck } from "../server/index.ts";

export function runtimeHealthCheck(runtimeError: () => string | undefined): HealthCheck {
  return {
    name: "runtime",
    check() {
      const message = runtimeError();
      return message === undefined ? { ok: true } : { ok: false, message };
    },
  };
}

export function plegHealthCheck(pleg: { healthy(): { ok: boolean; message?: string } }): HealthCheck {
  return { name: "pleg", check: () => pleg.healthy() };
}
