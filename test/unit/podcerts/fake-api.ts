// A fake apiserver for the podcerts tests: discovery, GETs of service accounts and Nodes, and
// collections (ClusterTrustBundles, PodCertificateRequests) that are listed, watched and created
// into, with every request recorded.
import { ApiError, type ApiClient, type WatchEvent } from "../../../src/apiclient/index.ts";
import { Channel } from "../../../src/lib/index.ts";

type Obj = { metadata?: { name?: string; namespace?: string; resourceVersion?: string; creationTimestamp?: string }; [k: string]: unknown };

export function fakeApi(opts: { discovery?: Record<string, string[]>; objects?: Record<string, unknown>; now?: () => number } = {}) {
  const collections = new Map<string, Obj[]>();
  const watches: { path: string; channel: Channel<WatchEvent<Obj>> }[] = [];
  const calls: { verb: string; path: string; fieldSelector?: string; body?: unknown }[] = [];
  let rv = 1;
  let created = 0;
  const notFound = (path: string) => new ApiError(`${path} not found`, { code: 404, reason: "NotFound" });
  const client: Pick<ApiClient, "get" | "list" | "watch" | "create"> = {
    get: async <T>(path: string) => {
      calls.push({ verb: "get", path });
      const groupVersion = /^\/apis\/(.+)$/.exec(path)?.[1];
      if (groupVersion && opts.discovery?.[groupVersion]) return { resources: opts.discovery[groupVersion].map((name) => ({ name })) } as T;
      const obj = opts.objects?.[path];
      if (obj === undefined) throw notFound(path);
      return obj as T;
    },
    list: async <T>(path: string, o?: { fieldSelector?: string }) => {
      calls.push({ verb: "list", path, fieldSelector: o?.fieldSelector });
      return { items: [...(collections.get(path) ?? [])] as T[], metadata: { resourceVersion: String(rv) } };
    },
    watch: <T>(path: string, o?: { fieldSelector?: string; signal?: AbortSignal }) => {
      calls.push({ verb: "watch", path, fieldSelector: o?.fieldSelector });
      const channel = new Channel<WatchEvent<Obj>>(64);
      watches.push({ path, channel });
      o?.signal?.addEventListener("abort", () => channel.close(), { once: true });
      return channel as unknown as AsyncIterable<WatchEvent<T>>;
    },
    create: async <T>(path: string, body: T) => {
      calls.push({ verb: "create", path, body });
      const obj = structuredClone(body) as Obj & { metadata: { generateName?: string } };
      obj.metadata.name ??= `${obj.metadata.generateName ?? ""}${++created}`;
      obj.metadata.creationTimestamp = new Date(opts.now?.() ?? 0).toISOString();
      obj.metadata.resourceVersion = String(++rv);
      await send(`${path.replace(/\/namespaces\/[^/]+/, "")}`, "ADDED", obj);
      return obj as T;
    },
  };
  /** Changes a collection (by its cluster-wide path) and tells its watches. */
  async function send(path: string, type: WatchEvent<Obj>["type"], obj: Obj): Promise<void> {
    const items = collections.get(path) ?? [];
    const key = (o: Obj) => `${o.metadata?.namespace}/${o.metadata?.name}`;
    const rest = items.filter((o) => key(o) !== key(obj));
    obj.metadata = { ...obj.metadata, resourceVersion: String(++rv) };
    collections.set(path, type === "DELETED" ? rest : [...rest, obj]);
    for (const w of watches) if (w.path === path) await w.channel.send({ type, object: obj });
  }
  return { client, calls, send, collection: (path: string) => collections.get(path) ?? [] };
}

/** Lets every promise chain run (the reflector's list, a watch event, the worker). */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}
