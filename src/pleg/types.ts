/** PLEG event types (pkg/kubelet/pleg/pleg.go); string values equal the names. */
export type PodLifecycleEventType =
  | "ContainerStarted"
  | "ContainerDied"
  | "ContainerRemoved"
  | "PodSync"
  | "ContainerChanged"
  | "ConditionMet";

export interface PodLifecycleEvent {
  /** Pod UID. */
  id: string;
  type: PodLifecycleEventType;
  /** Container (or sandbox) id. */
  data: string;
}
