/**
 * The apiserver as the events' sink (client-go's EventSinkImpl): POST to the object's namespace,
 * PATCH (strategic merge) of count, lastTimestamp and message for a repeat. A request that got no
 * answer is retried by the recorder; an answer that refuses the event is final.
 */
import type { Event as CoreEvent } from "kubernetes-types/core/v1";
import { ApiError, isAlreadyExists, isNotFound, resourcePath, type ApiClient } from "../apiclient/index.ts";
import type { EventSink, SinkFailure } from "./recorder.ts";

export function apiEventSink(client: ApiClient): { sink: EventSink; classify(err: unknown): SinkFailure } {
  const path = (e: CoreEvent, name?: string) => resourcePath({ apiVersion: "v1", resource: "events", namespace: e.metadata.namespace, name });
  return {
    sink: {
      create: (event, signal) => client.create(path(event), event, { signal }),
      patch: (event, patch, signal) => client.patch(path(event, event.metadata.name), patch, "strategic-merge", { signal }),
    },
    classify(err) {
      if (isNotFound(err)) return "notFound";
      if (isAlreadyExists(err)) return "alreadyExists";
      // No answer, or an apiserver that is overloaded or restarting: hold on and retry.
      if (err instanceof ApiError && (err.code === 0 || err.code === 429 || err.code >= 500)) return "retry";
      return err instanceof ApiError ? "rejected" : "retry";
    },
  };
}
