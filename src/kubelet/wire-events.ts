/**
 * The events area: the kubelet's event broadcaster and recorder (source kubelet on this node).
 * With --kubeconfig, events go to the apiserver through their own client, limited as the kubelet
 * limits its event client (--event-qps, 0 = no limit; --event-burst, 0 = client-go's 10); without
 * one they are only logged (--v=3), as the kubelet does when no apiserver is defined. Over
 * HTTP/2 where the server is https, as the node's other clients (fetch's HTTP/1.1 was the largest
 * self cost of the node's requests in a 100-pod burst's profile: docs/lean.md).
 */
import { createApiClient, loadKubeconfig } from "../apiclient/index.ts";
import type { BunletConfig } from "../config/index.ts";
import { apiEventSink, createEventBroadcaster, type EventRecorder } from "../events/index.ts";
import { deferLogged } from "./teardown.ts";
import type { WireBase } from "./wire-base.ts";
import { restClientObserver } from "../metrics/index.ts";

export interface EventParts extends AsyncDisposable {
  recorder: EventRecorder;
}

/** The apiserver sink on the events' own client; undefined (events only logged) without --kubeconfig. */
function eventSink(config: BunletConfig, { clock, log, metrics, signal }: WireBase) {
  if (config.kubeconfig === "") {
    log.info("No api server defined - no events will be sent to API server.");
    return undefined;
  }
  const client = createApiClient(loadKubeconfig(config.kubeconfig), { clock, onRequest: restClientObserver(metrics), signal, qps: config.eventRecordQPS, burst: config.eventBurst || 10, userAgent: "bunlet/events", http2: true });
  return apiEventSink(client);
}

export function wireEvents(config: BunletConfig, base: WireBase): EventParts {
  const { clock, log, random, signal } = base;
  const sink = eventSink(config, base);
  const broadcaster = createEventBroadcaster({ clock, log, random, sink }, { component: "kubelet", host: config.nodeName });
  const stop = new AbortController();
  const running = broadcaster.run(AbortSignal.any([signal, stop.signal]));
  const stack = new AsyncDisposableStack();
  deferLogged(stack, log, "event broadcaster", async () => {
    stop.abort();
    await running;
  });
  return { recorder: broadcaster.recorder, [Symbol.asyncDispose]: () => stack.disposeAsync() };
}
