/**
 * What SyncPod and KillPod report (kubecontainer.PodSyncResult): one step per action with its
 * target, failure reason and message, and how long it took. The failure reasons are the
 * kubelet's (pkg/kubelet/container/sync_result.go, kuberuntime, images); they become the
 * container's waiting reason in the API status.
 */
import { Reason, SyncError } from "./errors.ts";

export type SyncAction =
  | "KillPod"
  | "KillContainer"
  | "CreatePodSandbox"
  | "StartContainer"
  | "InitContainer"
  | "KillPodSandbox"
  | "ResizePodInPlace";

export interface SyncStep {
  action: SyncAction;
  target: string;
  error?: { reason: string; message: string };
  durationMs: number;
}

export interface PodSyncResult {
  steps: SyncStep[];
  /** The failure (its backoffUntil set when only backoff kept the pod from progressing). */
  error?: Error;
}

/** SyncPod failed; the message lists every failed step as the kubelet's aggregate does, the reason is the first one's. */
function aggregateError(failed: SyncStep[]): SyncError {
  const message = failed.map((s) => `failed to "${s.action}" for "${s.target}" with ${s.error!.reason}: "${s.error!.message}"`).join(", ");
  return new SyncError(failed[0]!.error!.reason, message);
}

/** Collects the steps of one sync and turns them into a PodSyncResult. */
export class SyncRecorder {
  readonly steps: SyncStep[] = [];
  #expiries: number[] = [];
  #syncError?: Error;

  constructor(private readonly now: () => number) {}

  /** Runs fn as one step; a thrown error marks the step failed and is rethrown. */
  async step<T>(action: SyncAction, target: string, fn: () => Promise<T>): Promise<T> {
    const started = this.now();
    const step: SyncStep = { action, target, durationMs: 0 };
    this.steps.push(step);
    try {
      return await fn();
    } catch (err) {
      const e = err instanceof SyncError ? err : new SyncError(reasonFor(action), (err as Error).message);
      step.error = { reason: e.reason, message: e.message };
      if (e.backoffUntil) this.#expiries.push(e.backoffUntil);
      throw e;
    } finally {
      step.durationMs = this.now() - started;
    }
  }

  /** A failure outside any step (e.g. reading the new sandbox's status). */
  fail(err: Error): void {
    this.#syncError ??= err;
  }

  merge(other: PodSyncResult): void {
    this.steps.push(...other.steps);
    // An error its failed steps do not explain was a failure outside any step.
    if (other.error && !other.steps.some((s) => s.error)) this.#syncError ??= other.error;
  }

  result(): PodSyncResult {
    const failed = this.steps.filter((s) => s.error);
    if (this.#syncError) return { steps: this.steps, error: this.#syncError };
    if (failed.length === 0) return { steps: this.steps };
    const onlyBackoff = failed.every((s) => s.error!.reason === Reason.CrashLoopBackOff || s.error!.reason === Reason.ImagePullBackOff);
    if (onlyBackoff && this.#expiries.length > 0) {
      const first = failed[0].error!;
      return { steps: this.steps, error: new SyncError(first.reason, first.message, Math.min(...this.#expiries)) };
    }
    return { steps: this.steps, error: aggregateError(failed) };
  }
}

function reasonFor(action: SyncAction): string {
  switch (action) {
    case "KillContainer":
    case "KillPod":
      return Reason.KillContainerError;
    case "KillPodSandbox":
      return Reason.KillPodSandboxError;
    case "CreatePodSandbox":
      return Reason.CreatePodSandboxError;
    case "ResizePodInPlace":
      return Reason.ResizePodInPlaceError;
    default:
      return Reason.RunContainerError;
  }
}

/** The kubelet's reasonCache: the last start failure per container, until it starts fine. */
export class ReasonCache {
  #byPod = new Map<string, Map<string, { reason: string; message: string }>>();

  update(uid: string, steps: SyncStep[]): void {
    for (const s of steps) {
      if (s.action !== "StartContainer" && s.action !== "InitContainer") continue;
      if (s.error) {
        let pod = this.#byPod.get(uid);
        if (!pod) this.#byPod.set(uid, (pod = new Map()));
        pod.set(s.target, { ...s.error });
      } else this.#byPod.get(uid)?.delete(s.target);
    }
  }

  get(uid: string, container: string): { reason: string; message: string } | undefined {
    const v = this.#byPod.get(uid)?.get(container);
    return v ? { ...v } : undefined;
  }

  forget(uid: string): void {
    this.#byPod.delete(uid);
  }
}
