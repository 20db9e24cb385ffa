/**
 * The API objects pods read, for their env vars and volumes (src/apiobjects: ConfigMaps and
 * Secrets, the cluster's Services, service account tokens), on the node's rate-limited API client
 * (wire-api-client.ts) and through the checkpoint when there is one; wire-volumes.ts hands them
 * to the volume manager, wire-runtime.ts to the runtime manager. Without --kubeconfig there are
 * none and API-backed env vars and volumes fail as on a standalone kubelet.
 */
import type { ApiClient } from "../apiclient/index.ts";
import { createApiObjects } from "../apiobjects/index.ts";
import type { Checkpoint } from "../checkpoint/index.ts";
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

export function wireApiObjects(base: WireBase, client: ApiClient | undefined, checkpoint?: Checkpoint): ApiObjectParts {
  const { clock, log, random, signal } = base;
  const stack = new AsyncDisposableStack();
  if (!client) return { [Symbol.asyncDispose]: () => stack.disposeAsync() };
  const objects = createApiObjects({ client, checkpoint, clock, random, log });
  // The Service reflector and the token cleanup, until the agent shuts down or the parts are disposed.
  const stop = new AbortController();
  const running = objects.run(AbortSignal.any([signal, stop.signal]));
  deferLogged(stack, log, "API objects", async () => {
    stop.abort();
    await running;
  });
  return { env: objects.env, volumes: objects.volumes, [Symbol.asyncDispose]: () => stack.disposeAsync() };
}
