/**
 * Injected failures and latency, keyed by CRI method name ("RunPodSandbox", "GetContainerEvents",
 * "PullImage", …). A failure is consumed by the call it hits; a delay stays until cleared.
 */
import { GrpcCode } from "../../src/cri/index.ts";
import { FakeCriError } from "./errors.ts";

interface PlannedFailure {
  code: GrpcCode;
  message: string;
  remaining: number;
}

export class FaultPlan {
  readonly #failures = new Map<string, PlannedFailure[]>();
  readonly #delays = new Map<string, number>();

  /** The next `count` calls of `method` fail with `code`. Plans for one method queue up in order. */
  failNext(method: string, code: GrpcCode, count = 1, message?: string): void {
    if (count <= 0) return;
    const list = this.#failures.get(method) ?? [];
    list.push({ code, message: message ?? `fake CRI: injected ${GrpcCode[code] ?? code} for ${method}`, remaining: count });
    this.#failures.set(method, list);
  }

  /** The failure this call of `method` must return, if one is planned; consumes it. */
  take(method: string): FakeCriError | undefined {
    const list = this.#failures.get(method);
    const next = list?.[0];
    if (!list || !next) return undefined;
    next.remaining--;
    if (next.remaining === 0) list.shift();
    if (list.length === 0) this.#failures.delete(method);
    return new FakeCriError(next.code, next.message);
  }

  /** Delays every call of `method` ("*" = all methods) by `ms` before it is handled; 0 clears. */
  delay(method: string, ms: number): void {
    if (ms > 0) this.#delays.set(method, ms);
    else this.#delays.delete(method);
  }

  delayFor(method: string): number {
    return this.#delays.get(method) ?? this.#delays.get("*") ?? 0;
  }

  clear(): void {
    this.#failures.clear();
    this.#delays.clear();
  }
}
