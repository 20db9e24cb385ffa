/**
 * ConfigMaps and Secrets as the kubelet's configMapManager and secretManager give them to pods
 * (the Get strategy: one GET per read, NotFound as undefined), through the checkpoint when there
 * is one.
 */
import type { ConfigMap, Secret } from "../api/index.ts";
import { isNotFound, resourcePath, type ApiClient } from "../apiclient/index.ts";
import type { Checkpoint } from "../checkpoint/index.ts";
import type { Logger } from "../lib/index.ts";
import { throughCheckpoint } from "./through-checkpoint.ts";

export interface ObjectReaders {
  configMap(namespace: string, name: string, signal?: AbortSignal): Promise<ConfigMap | undefined>;
  secret(namespace: string, name: string, signal?: AbortSignal): Promise<Secret | undefined>;
}

export function createObjectReaders(client: Pick<ApiClient, "get">, checkpoint: Checkpoint | undefined, log: Logger): ObjectReaders {
  async function get<T>(path: string, signal?: AbortSignal): Promise<T | undefined> {
    try {
      return await client.get<T>(path, { signal });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
  const path = (resource: "configmaps" | "secrets", namespace: string, name: string) => resourcePath({ apiVersion: "v1", resource, namespace, name });
  return {
    configMap: (namespace, name, signal) =>
      throughCheckpoint(
        checkpoint,
        {
          read: () => get<ConfigMap>(path("configmaps", namespace, name), signal),
          kept: () => checkpoint?.configMap(namespace, name),
          record: (cm) => checkpoint?.recordConfigMap(namespace, name, cm),
        },
        { configmap: `${namespace}/${name}` },
        log,
      ),
    secret: (namespace, name, signal) =>
      throughCheckpoint(
        checkpoint,
        {
          read: () => get<Secret>(path("secrets", namespace, name), signal),
          kept: () => checkpoint?.secret(namespace, name),
          record: (s) => checkpoint?.recordSecret(namespace, name, s),
        },
        { secret: `${namespace}/${name}` },
        log,
      ),
  };
}
