/**
 * PodConfig (the kubelet's config.PodConfig): starts the configured sources (PodSource, file first
 * then HTTP as makePodSourceConfig wires them), merges each snapshot into one PodStorage, and hands the
 * resulting updates to a single consumer, in order, through a bounded channel (capacity 50, as
 * upstream). Merges are serialized across sources, and a source waits while the channel is full,
 * so a slow sync loop slows the sources down instead of losing updates.
 *
 * Ownership: PodConfig owns its sources and the channel. stop() (or the caller's signal) stops
 * every source, waits for them, and then closes the channel so the consumer's loop ends.
 */
import { FileSource as FileSourceName, HTTPSource as HTTPSourceName, type Pod } from "../api/index.ts";
import type { ApiClient } from "../apiclient/index.ts";
import { anySignal, Channel, type Clock, type Logger } from "../lib/index.ts";
import { ApiserverSource, type PodCheckpoint } from "./api-source.ts";
import type { ManifestError } from "./errors.ts";
import { FileSource, type ManifestErrorMetrics } from "./file-source.ts";
import { HttpSource } from "./http-source.ts";
import { createLastGoodStore } from "./last-good-store.ts";
import type { PodSource } from "./source.ts";
import { PodStorage, type InvalidPodEvent, type PodUpdate } from "./storage.ts";

const defaultFileCheckFrequencyMs = 20_000;
const defaultHttpCheckFrequencyMs = 20_000;
const podUpdatesCapacity = 50;

export interface PodConfigOptions {
  /** --pod-manifest-path (staticPodPath): a directory or a single manifest file. */
  staticPodPath?: string;
  /** Where the last good version of each manifest file outlives a restart (`<root-dir>/static-pods`). */
  lastGoodDir?: string;
  /** --manifest-url (staticPodURL). */
  staticPodURL?: string;
  /** --manifest-url-header, by header name (a name may carry several values). */
  staticPodURLHeader?: Record<string, string[]>;
  nodeName: string;
  fileCheckFrequencyMs?: number;
  httpCheckFrequencyMs?: number;
  /**
   * When bunlet joins a cluster (--kubeconfig): the API client of the apiserver source, and the
   * random source of its backoff and watch-timeout jitter; with --offline-start, the checkpoint
   * whose pods are the source's first snapshot and which records the apiserver's.
   */
  apiserver?: {
    client: Pick<ApiClient, "list" | "watch">;
    random: () => number;
    checkpoint?: PodCheckpoint;
    /** Sees every pod of every snapshot as the watch brought it (the startup SLI's ObservedPodOnWatch). */
    observe?: (pod: Pod, when: number) => void;
  };
  clock: Clock;
  log: Logger;
  metrics: ManifestErrorMetrics;
  /** Stops every source when it aborts (as stop() does). */
  signal: AbortSignal;
  onInvalid?: (event: InvalidPodEvent) => void;
  /** The HTTP client (tests); the global fetch by default. */
  fetch?: typeof fetch;
}

export interface PodConfig {
  /** The ordered updates, for exactly one consumer; ends after stop(). */
  updates: AsyncIterable<PodUpdate>;
  /** The configured source names, in wiring order ("file", "http", "api"). */
  sources: string[];
  /** True when `seen` holds every configured source and each has sent a snapshot. */
  seenAllSources(seen: ReadonlySet<string>): boolean;
  /** Manifests that currently fail to decode, by file path or URL. */
  lastManifestErrors(): Map<string, ManifestError>;
  /** Errors of broken manifest files whose last good pod keeps running, by that pod's UID. */
  keptPodErrors(): Map<string, ManifestError>;
  stop(): Promise<void>;
}

/**
 * The sources the options configure, in makePodSourceConfig's order (file, then HTTP); each sends
 * its snapshots to `send` under its name; the apiserver source comes last, as in the kubelet.
 */
function configuredSources(opts: PodConfigOptions, log: Logger, send: (source: string, pods: Pod[]) => Promise<void>): PodSource[] {
  const sources: PodSource[] = [];
  if (opts.staticPodPath) {
    sources.push(
      new FileSource({
        path: opts.staticPodPath,
        nodeName: opts.nodeName,
        clock: opts.clock,
        log: log.with({ source: FileSourceName }),
        checkFrequencyMs: opts.fileCheckFrequencyMs ?? defaultFileCheckFrequencyMs,
        metrics: opts.metrics,
        onSnapshot: (pods) => send(FileSourceName, pods),
        store: opts.lastGoodDir ? createLastGoodStore(opts.lastGoodDir) : undefined,
      }),
    );
  }
  if (opts.staticPodURL) {
    sources.push(
      new HttpSource({
        url: opts.staticPodURL,
        headers: opts.staticPodURLHeader,
        nodeName: opts.nodeName,
        clock: opts.clock,
        log: log.with({ source: HTTPSourceName }),
        periodMs: opts.httpCheckFrequencyMs ?? defaultHttpCheckFrequencyMs,
        metrics: opts.metrics,
        onSnapshot: (pods) => send(HTTPSourceName, pods),
        fetch: opts.fetch,
      }),
    );
  }
  if (opts.apiserver) {
    sources.push(
      new ApiserverSource({
        client: opts.apiserver.client,
        nodeName: opts.nodeName,
        clock: opts.clock,
        random: opts.apiserver.random,
        log: log.with({ source: "api" }),
        onSnapshot: (pods) => {
          const observe = opts.apiserver?.observe;
          // Every pod the apiserver gave is an API pod here (its mirror pods too), as the kubelet's
          // config annotates the source before its IsStaticPod check.
          if (observe) for (const pod of pods) observe(pod, opts.clock.now());
          return send("api", pods);
        },
        checkpoint: opts.apiserver.checkpoint,
      }),
    );
  }
  return sources;
}

export function createPodConfig(opts: PodConfigOptions): PodConfig {
  const log = opts.log.with({ component: "podconfig" });
  const stopper = new AbortController();
  const signal = anySignal(opts.signal, stopper.signal);
  const channel = new Channel<PodUpdate>(podUpdatesCapacity);

  const sources = configuredSources(opts, log, deliver);
  const storage = new PodStorage({ sources: sources.map((s) => s.name), clock: opts.clock, log, onInvalid: opts.onInvalid });

  // One merge at a time, each fully sent before the next: the kubelet's updateLock.
  let merging: Promise<void> = Promise.resolve();
  function deliver(source: string, pods: Pod[]): Promise<void> {
    const turn = merging.then(async () => {
      if (signal.aborted) return;
      for (const update of storage.merge(source, pods)) await channel.send(update, { signal });
    });
    merging = turn.catch(() => undefined);
    return turn;
  }

  const finished = Promise.allSettled(sources.map((s) => s.run(signal)))
    .then(() => merging)
    .finally(() => channel.close());

  return {
    updates: channel,
    sources: sources.map((s) => s.name),
    seenAllSources: (seen) => storage.seenAllSources(seen),
    lastManifestErrors: () => new Map(sources.flatMap((s) => [...s.manifestErrors()])),
    keptPodErrors: () => new Map(sources.flatMap((s) => [...(s.keptPodErrors?.() ?? [])])),
    async stop() {
      stopper.abort();
      await finished;
    },
  };
}
