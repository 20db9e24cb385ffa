/**
 * Events: the kubelet's event recorder (client-go tools/record) with its correlator (aggregation,
 * counting, spam filter) and the apiserver sink, and the references and reasons the kubelet's
 * events use. Depends on lib, api and apiclient only.
 */
export { createEventBroadcaster, type EventRecorder, type EventType } from "./recorder.ts";
export { apiEventSink } from "./sink.ts";
export { EventReason } from "./reasons.ts";
export { containerReference, nodeReference, podReference } from "./reference.ts";
