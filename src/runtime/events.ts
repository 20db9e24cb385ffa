/**
 * The runtime manager's events (kuberuntime's recordContainerEvent): about a container when it is
 * in the pod's spec, else none (an orphan rebuilt from labels has no spec to point into).
 */
import type { Container, Pod } from "../api/index.ts";
import { isCriError } from "../cri/index.ts";
import { containerReference, type EventRecorder, type EventType } from "../events/index.ts";

export function recordContainerEvent(
  deps: { recorder: EventRecorder },
  pod: Pod,
  container: Pick<Container, "name">,
  type: EventType,
  reason: string,
  message: string,
): void {
  const ref = containerReference(pod, container);
  if (ref) deps.recorder.event(ref, type, reason, message);
}

/**
 * An error as the kubelet's `%v` prints it in an event: a CRI failure as grpc-go's status error
 * (`rpc error: code = Unknown desc = …`), anything else by its message.
 */
export function eventErrorText(err: unknown): string {
  if (!isCriError(err)) return err instanceof Error ? err.message : String(err);
  const goName = err.codeName
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_m, _sep, c: string) => c.toUpperCase())
    .replace(/^Ok$/, "OK");
  return `rpc error: code = ${goName} desc = ${err.detail}`;
}
