/**
 * The API objects pods read, for their env vars and volumes (ConfigMaps and Secrets by GET, the
 * Services of the cluster through a reflector for service-link env vars, service account tokens
 * through the TokenRequest API and the token manager); wire-volumes.ts hands them to the volume
 * manager. They are read through the node's rate-limited API client (wire-api-client.ts); without
 * --kubeconfig there are none and API-backed env vars and volumes fail as on a standalone kubelet.
 *
 * With a checkpoint (--offline-start), every object read from the apiserver is recorded in it, and
 * it answers instead of the apiserver until the apiserver's first list of pods (the pods running
 * then are the checkpoint's, and a read of a frozen apiserver could hang) and whenever a read fails
 * for any reason but NotFound, so a container restarted while the link is down gets its env and
 * files as before.
 */
import type { ConfigMap, Secret, Service } from "../api/index.ts";
import { createReflector, isNotFound, ObjectStore, resourcePath, type ApiClient, type KubeObject } from "../apiclient/index.ts";
import type { Checkpoint } from "../checkpoint/index.ts";
import { ObjectNotFoundError, type EnvObjects } from "../runtime/index.ts";
import { createTokenManager, type IssuedToken, type TokenRequestSpec, type VolumeObjects } from "../volumes/index.ts";
import { deferLogged } from "./teardown.ts";
import type { WireBase } from "./wire-base.ts";

/** The kubelet's token manager cleanup period. */
const TOKEN_CLEANUP_MS = 60_000;

export interface ApiObjectParts extends AsyncDisposable {
  /** For container env; undefined when standalone. */
  env?: EnvObjects;
  /** For volumes; undefined when standalone. */
  volumes?: VolumeObjects;
}

interface TokenRequestStatus {
  status: { token: string; expirationTimestamp: string };
}

/**
 * Reads an object through the checkpoint: the kept copy while the checkpoint's pods run (before
 * the first list), else the apiserver (its answer recorded, NotFound as a deletion), falling back
 * to the kept copy when the apiserver cannot be read.
 */
async function throughCheckpoint<T>(
  checkpoint: Checkpoint | undefined,
  io: { read(): Promise<T | undefined>; kept(): T | undefined; record(obj: T | undefined): void },
  what: Record<string, string>,
  log: WireBase["log"],
): Promise<T | undefined> {
  if (!checkpoint) return io.read();
  const kept = io.kept();
  if (kept !== undefined && !checkpoint.listed()) return kept;
  let obj: T | undefined;
  try {
    obj = await io.read();
  } catch (err) {
    if (kept === undefined) throw err;
    log.debug("Could not read an object from the apiserver; using the checkpointed copy", { ...what, err }, 2);
    return kept;
  }
  io.record(obj);
  return obj;
}

/** The token manager's cache key of a token request (one per pod, service account, audience, expiry). */
function tokenKey(namespace: string, serviceAccount: string, spec: TokenRequestSpec): string {
  return JSON.stringify([serviceAccount, namespace, spec.audiences, spec.expirationSeconds, spec.boundObjectRef.uid]);
}

/** ConfigMaps and Secrets by GET (NotFound as undefined), through the checkpoint when there is one. */
function objectReaders(client: ApiClient, checkpoint: Checkpoint | undefined, log: WireBase["log"]) {
  async function get<T>(path: string, signal?: AbortSignal): Promise<T | undefined> {
    try {
      return await client.get<T>(path, { signal });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
  const configMapPath = (namespace: string, name: string) => resourcePath({ apiVersion: "v1", resource: "configmaps", namespace, name });
  const secretPath = (namespace: string, name: string) => resourcePath({ apiVersion: "v1", resource: "secrets", namespace, name });
  const configMap = (namespace: string, name: string, signal?: AbortSignal) =>
    throughCheckpoint(
      checkpoint,
      {
        read: () => get<ConfigMap>(configMapPath(namespace, name), signal),
        kept: () => checkpoint?.configMap(namespace, name),
        record: (cm) => checkpoint?.recordConfigMap(namespace, name, cm),
      },
      { configmap: `${namespace}/${name}` },
      log,
    );
  const secret = (namespace: string, name: string, signal?: AbortSignal) =>
    throughCheckpoint(
      checkpoint,
      {
        read: () => get<Secret>(secretPath(namespace, name), signal),
        kept: () => checkpoint?.secret(namespace, name),
        record: (s) => checkpoint?.recordSecret(namespace, name, s),
      },
      { secret: `${namespace}/${name}` },
      log,
    );
  return { configMap, secret };
}

/** The token manager, issuing service account tokens by TokenRequest, through the checkpoint when there is one. */
function tokenManager(client: ApiClient, checkpoint: Checkpoint | undefined, base: WireBase) {
  const { clock, log, random } = base;
  async function requestToken(namespace: string, serviceAccount: string, spec: TokenRequestSpec, signal?: AbortSignal): Promise<IssuedToken> {
    const path = resourcePath({ apiVersion: "v1", resource: "serviceaccounts", namespace, name: serviceAccount, subresource: "token" });
    const body = { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec };
    const tr = await client.create<unknown>(path, body, { signal });
    const { status } = tr as TokenRequestStatus;
    return { token: status.token, expiresAt: Date.parse(status.expirationTimestamp) };
  }

  return createTokenManager({
    clock,
    random,
    log,
    async request(namespace, serviceAccount, spec, signal) {
      const key = tokenKey(namespace, serviceAccount, spec);
      const issued = await throughCheckpoint(
        checkpoint,
        {
          read: () => requestToken(namespace, serviceAccount, spec, signal),
          kept: () => checkpoint?.token(key),
          record: (t) => t && checkpoint?.recordToken({ key, podUID: spec.boundObjectRef.uid, token: t.token, expiresAt: t.expiresAt }),
        },
        { serviceAccount: `${namespace}/${serviceAccount}` },
        log,
      );
      if (!issued) throw new Error(`no token issued for service account ${namespace}/${serviceAccount}`);
      return { token: issued.token, expiresAt: issued.expiresAt };
    },
  });
}

/**
 * The Service reflector and the token manager's cleanup loop, until the agent shuts down or the
 * parts are disposed. Returns whether the Services were listed.
 */
function runWithClient(c: ApiClient, services: ObjectStore<KubeObject>, tokens: ReturnType<typeof tokenManager>, base: WireBase, stack: AsyncDisposableStack): () => boolean {
  const { clock, log, random, signal } = base;
  const reflector = createReflector({ client: c, path: "/api/v1/services", store: services, clock, random, log, name: "*v1.Service" });
  const stop = new AbortController();
  const loops = AbortSignal.any([signal, stop.signal]);
  const running = Promise.all([
    reflector.run(loops),
    (async () => {
      while (!loops.aborted) {
        await clock.sleep(TOKEN_CLEANUP_MS, loops).catch(() => {});
        tokens.cleanup();
      }
    })(),
  ]);
  deferLogged(stack, log, "API objects", async () => {
    stop.abort();
    await running;
  });
  return () => reflector.hasSynced();
}

export function wireApiObjects(base: WireBase, client: ApiClient | undefined, checkpoint?: Checkpoint): ApiObjectParts {
  const stack = new AsyncDisposableStack();
  if (!client) return { [Symbol.asyncDispose]: () => stack.disposeAsync() };
  const services = new ObjectStore<KubeObject>({ onChange: (list) => checkpoint?.recordServices(list as Service[]) });
  const { configMap, secret } = objectReaders(client, checkpoint, base.log);
  const tokens = tokenManager(client, checkpoint, base);
  const servicesSynced = runWithClient(client, services, tokens, base, stack);
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
        if (servicesSynced()) return services.list() as Service[];
        // Before the Services were listed (the apiserver unreachable at start), the checkpoint's.
        return checkpoint?.services();
      },
    },
    volumes: { configMap, secret, tokens },
    [Symbol.asyncDispose]: () => stack.disposeAsync(),
  };
}
