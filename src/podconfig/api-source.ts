/**
 * The apiserver source (the kubelet's config/apiserver.go NewSourceApiserver): a reflector lists
 * and watches the pods bound to this node (`fieldSelector=spec.nodeName=<node>`) into a store, and
 * every change of the store is sent as a full snapshot of source "api" (client-go's UndeltaStore).
 * The reflector brings resourceVersions, bookmarks, resumed watches and the relist after 410 Gone;
 * a relist that finds the same pods sends a snapshot that changes nothing, so running pods are
 * never touched by a broken watch. Nothing is sent before the first list has succeeded, so the
 * source (and with it every source) counts as seen only then, and bunlet deletes nothing before.
 *
 * Beyond the kubelet (issue 27): with a checkpoint of the pods the apiserver last gave, those pods
 * are this source's first snapshot when the first list has not succeeded within 3 s, so a node
 * started while the apiserver is unreachable runs them (same UIDs, same specs) and the source
 * counts as seen. They are provisional:
 * the first list replaces them as every snapshot replaces the one before (a pod gone from it is
 * removed, a changed one updated, an unchanged one left alone), and only the apiserver's own
 * snapshots are written to the checkpoint.
 *
 * Snapshots are coalesced: while one is being delivered (the pod config's channel may be full),
 * later changes replace each other and only the newest is sent next, as each is the whole truth.
 */
import { createReflector, ObjectStore, type ApiClient } from "../apiclient/index.ts";
import type { Pod } from "../api/index.ts";
import type { Pod as WirePod } from "kubernetes-types/core/v1";
import { Mailbox, type Clock, type Logger } from "../lib/index.ts";
import type { ManifestError } from "./errors.ts";
import type { PodSource } from "./source.ts";

/** The node's record of its desired state, as this source uses it. */
export interface PodCheckpoint {
  /** The pods of the checkpoint found at start; undefined when there is none. */
  readonly startPods: Pod[] | undefined;
  /** Records a snapshot of the apiserver's pods. */
  recordPods(pods: readonly Pod[]): void;
}

export interface ApiserverSourceOptions {
  client: Pick<ApiClient, "list" | "watch">;
  nodeName: string;
  clock: Clock;
  random: () => number;
  log: Logger;
  onSnapshot: (pods: Pod[]) => Promise<void>;
  checkpoint?: PodCheckpoint;
}

/** How long the first list may take before the checkpointed pods are started instead. */
const CHECKPOINT_GRACE_MS = 3_000;

export class ApiserverSource implements PodSource {
  readonly name = "api";
  readonly #opts: ApiserverSourceOptions;

  constructor(opts: ApiserverSourceOptions) {
    this.#opts = opts;
  }

  /** The apiserver's pods are decoded by the apiserver: there are no manifest errors here. */
  manifestErrors(): Map<string, ManifestError> {
    return new Map();
  }

  async run(signal: AbortSignal): Promise<void> {
    const { client, nodeName, clock, random, log } = this.#opts;
    const { checkpoint } = this.#opts;
    const pending = new Mailbox<Pod[]>();
    const provisional = checkpoint?.startPods;
    let listed = false;
    let started = false;
    const onChange = (pods: Pod[]) => {
      if (!listed && started) log.info("The apiserver answered: its pods replace the checkpointed ones", { pods: pods.length, checkpointed: provisional?.length ?? 0 });
      listed = true;
      checkpoint?.recordPods(pods);
      void pending.put(pods);
    };
    // bunlet's Pod is the subset of the wire type it reads; the apiserver's objects pass through whole.
    const store = new ObjectStore<WirePod>({ onChange: (pods) => onChange(pods as unknown as Pod[]) });
    // The checkpoint only when the apiserver does not list within the grace: a reachable one
    // answers in well under a second, and its pods (with their status, which the checkpoint does
    // not keep: a restart must not report a Ready pod not-Ready) are then the first snapshot.
    const grace =
      provisional === undefined
        ? undefined
        : clock.setTimer(CHECKPOINT_GRACE_MS, () => {
            if (listed || signal.aborted) return;
            started = true;
            log.info("Starting the checkpointed pods until the apiserver answers", { pods: provisional.length, waitedMs: CHECKPOINT_GRACE_MS });
            void pending.put(provisional);
          });
    signal.addEventListener("abort", () => grace?.cancel(), { once: true });
    const reflector = createReflector<WirePod>({
      client,
      path: "/api/v1/pods",
      fieldSelector: `spec.nodeName=${nodeName}`,
      store,
      clock,
      random,
      log,
      name: "*v1.Pod",
    });
    log.info("Watching apiserver", { node: nodeName });
    await Promise.all([reflector.run(signal), this.#deliver(pending, signal)]);
  }

  /** Sends the newest snapshot, one at a time, until the signal aborts. */
  async #deliver(pending: Mailbox<Pod[]>, signal: AbortSignal): Promise<void> {
    for (;;) {
      const pods = await pending.take(signal);
      if (pods === undefined || signal.aborted) return;
      try {
        await this.#opts.onSnapshot(pods);
      } catch (err) {
        if (signal.aborted) return;
        this.#opts.log.error("Could not deliver the apiserver's pods; the next change sends them again", { err });
      }
    }
  }
}
