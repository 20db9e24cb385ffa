/**
 * The API objects pods read, for their env vars and volumes (src/apiobjects: ConfigMaps and
 * Secrets, the cluster's Services, service account tokens; src/podcerts: ClusterTrustBundles and
 * pod certificates), on the node's rate-limited API client (wire-api-client.ts) and through the
 * checkpoint when there is one; wire-volumes.ts hands them to the volume manager, wire-runtime.ts
 * to the runtime manager. Without --kubeconfig there are none and API-backed env vars and volumes
 * fail as on a standalone kubelet.
 */
import type { ApiClient } from "../apiclient/index.ts";
import { createApiObjects } from "../apiobjects/index.ts";
import type { Checkpoint } from "../checkpoint/index.ts";
import { podReference, type EventRecorder } from "../events/index.ts";
import { registerPodCertificateStates } from "../metrics/index.ts";
import { createPodCertificates, createTrustBundles } from "../podcerts/index.ts";
import type { EnvObjects } from "../runtime/index.ts";
import type { VolumeObjects } from "../volumes/index.ts";
import { deferLogged } from "./teardown.ts";
import type { WireBase } from "./wire-base.ts";

export interface ApiObjectParts extends AsyncDisposable {
  /** For container env; undefined when standalone. */
  env?: EnvObjects;
  /** For volumes; undefined when standalone. */
  volumes?: VolumeObjects;
}

export interface ApiObjectOptions {
  nodeName: string;
  /** Pod certificate events (Denied, Failed, CertificateOverdueForRefresh, CertificateExpired). */
  recorder: EventRecorder;
  checkpoint?: Checkpoint;
}

export function wireApiObjects(base: WireBase, client: ApiClient | undefined, opts: ApiObjectOptions): ApiObjectParts {
  const { clock, log, random, signal } = base;
  const { nodeName, recorder, checkpoint } = opts;
  const stack = new AsyncDisposableStack();
  if (!client) return { [Symbol.asyncDispose]: () => stack.disposeAsync() };
  const objects = createApiObjects({ client, checkpoint, clock, random, log });
  const trustBundles = createTrustBundles({ client, clock, random, log });
  const podCertificates = createPodCertificates({
    client,
    nodeName,
    recordEvent: (pod, reason, message) => recorder.event(podReference(pod), "Warning", reason, message),
    clock,
    random,
    log,
  });
  registerPodCertificateStates(base.metrics.registry, () => podCertificates.metricReport());
  // The Service reflector, the token cleanup, the trust bundle and pod certificate watches (each
  // started by the first pod that needs it), until the agent shuts down or the parts are disposed.
  const stop = new AbortController();
  const running = Promise.all([objects, trustBundles, podCertificates].map((o) => o.run(AbortSignal.any([signal, stop.signal]))));
  deferLogged(stack, log, "API objects", async () => {
    stop.abort();
    await running;
  });
  return { env: objects.env, volumes: { ...objects.volumes, trustBundles, podCertificates }, [Symbol.asyncDispose]: () => stack.disposeAsync() };
}
