/**
 * The API objects pods read, for their env vars and volumes: ConfigMaps and Secrets by GET, the
 * cluster's Services through a reflector (the kubelet's service lister, for service-link env vars)
 * and service account tokens by TokenRequest, each through the node's checkpoint when there is one.
 * run() keeps the Service reflector and the token manager's cleanup going until its signal aborts.
 */
import type { Service } from "../api/index.ts";
import { createReflector, ObjectStore, type ApiClient, type KubeObject } from "../apiclient/index.ts";
import type { Checkpoint } from "../checkpoint/index.ts";
import type { Clock, Logger } from "../lib/index.ts";
import { ObjectNotFoundError, type EnvObjects } from "../runtime/index.ts";
import type { VolumeObjects } from "../volumes/index.ts";
import { createObjectReaders } from "./readers.ts";
import { createApiTokenManager } from "./tokens.ts";

/** The kubelet's token manager cleanup period. */
const TOKEN_CLEANUP_MS = 60_000;

export interface ApiObjects {
  /** For container env: a missing ConfigMap or Secret is an ObjectNotFoundError. */
  env: EnvObjects;
  /**
   * For volumes: a missing ConfigMap or Secret is undefined (an optional volume may do without).
   * The trust bundles and pod certificates come from podcerts, beside these (the wiring joins them).
   */
  volumes: Omit<VolumeObjects, "trustBundles" | "podCertificates">;
  run(signal: AbortSignal): Promise<void>;
}

export interface ApiObjectsDeps {
  client: ApiClient;
  /** The node's record of its desired state (--offline-start); undefined reads the apiserver only. */
  checkpoint?: Checkpoint;
  clock: Clock;
  random: () => number;
  log: Logger;
}

export function createApiObjects(deps: ApiObjectsDeps): ApiObjects {
  const { client, checkpoint, clock, random, log } = deps;
  const services = new ObjectStore<KubeObject>({ onChange: (list) => checkpoint?.recordServices(list as Service[]) });
  const reflector = createReflector({ client, path: "/api/v1/services", store: services, clock, random, log, name: "*v1.Service" });
  const { configMap, secret } = createObjectReaders(client, checkpoint, log);
  const tokens = createApiTokenManager(client, checkpoint, { clock, random, log });
  return {
    env: {
      async configMap(namespace, name, signal) {
        const cm = await configMap(namespace, name, signal);
        if (!cm) throw new ObjectNotFoundError("configmap", name);
        return cm;
      },
      async secret(namespace, name, signal) {
        const s = await secret(namespace, name, signal);
        if (!s) throw new ObjectNotFoundError("secret", name);
        return s;
      },
      async services() {
        if (reflector.hasSynced()) return services.list() as Service[];
        // Before the Services were listed (the apiserver unreachable at start), the checkpoint's.
        return checkpoint?.services();
      },
    },
    volumes: { configMap, secret, tokens },
    async run(signal) {
      await Promise.all([
        reflector.run(signal),
        (async () => {
          while (!signal.aborted) {
            await clock.sleep(TOKEN_CLEANUP_MS, signal).catch(() => {});
            tokens.cleanup();
          }
        })(),
      ]);
    },
  };
}
