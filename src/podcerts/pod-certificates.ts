/**
 * The node's pod certificates (the kubelet's podcertificate.IssuingManager): one record per
 * podCertificate projection of each pod (namespace, pod, UID, volume, source index), driven
 * through states.ts by one worker over a work queue. A pod's projections are tracked when its
 * volumes are first set up, queued again whenever one of its requests changes in the node's
 * watch (one reflector for the node: spec.nodeName=<node>, the only list the Node authorizer
 * allows) and on a refresh pass every 1-2 minutes, and forgotten when its volumes are torn down.
 * Nothing survives a restart: a restarted node asks again, as the kubelet does.
 *
 * The volume manager asks for a projection's key and chain; while its first request is pending
 * the answer waits (up to ISSUE_WAIT_MS, as the kubelet's mount waits for its reconciler), so a
 * pod starts as soon as its signer issues.
 */
import type { Pod, PodCertificateProjection } from "../api/index.ts";
import { createReflector, type ApiClient, type KubeObject, type Reflector, type ReflectorStore } from "../apiclient/index.ts";
import { delay, type Clock, type Logger } from "../lib/index.ts";
import { generateKeyAndProof as realGenerate, type GenerateKeyAndProof } from "./keys.ts";
import { ProjectionQueue } from "./queue.ts";
import { createPodCertificateRequest, PCR_API_VERSION, podIdentity } from "./requests.ts";
import { ASSUME_DELETED_MS, credentialBundle, lateEvents, MAX_JITTER_MS, metricsState, observeRequest, requested, type Credentials, type CredState, type PodCertificateRequest } from "./states.ts";

/** How long a volume set-up waits for a pending first certificate before it fails and is retried. */
export const ISSUE_WAIT_MS = 30_000;
const REFRESH_PASS_MS = 60_000;

export interface PodCertificatesDeps {
  client: Pick<ApiClient, "get" | "list" | "watch" | "create">;
  nodeName: string;
  /** A Warning event about the pod (Denied, Failed, CertificateOverdueForRefresh, CertificateExpired). */
  recordEvent(pod: Pod, reason: string, message: string): void;
  clock: Clock;
  random: () => number;
  log: Logger;
  generateKeyAndProof?: GenerateKeyAndProof;
}

export interface PodCertificates {
  /** GetPodCertificateCredentialBundle, tracking the pod first (TrackPod); throws the kubelet's error for the state. */
  credentialBundle(pod: Pod, volumeName: string, sourceIndex: number, signal?: AbortSignal): Promise<Credentials>;
  /** ForgetPod: drops the pod's records (and with them its keys). */
  forgetPod(uid: string): void;
  /** podcertificate_states: projections per signer and state. */
  metricReport(): { signerName: string; state: string; count: number }[];
  /** The worker, the refresh pass and the watch, until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
}

interface ProjectionRecord {
  pod: Pod;
  volumeName: string;
  sourceIndex: number;
  source: PodCertificateProjection;
  state: CredState;
  /** Callers waiting for the state to change. */
  waiters: Set<() => void>;
}

/** The pod's part of a record key: every projection key of the pod starts with it. */
const podPrefix = (pod: Pod) => `${pod.metadata.namespace ?? ""}/${pod.metadata.name ?? ""}/${pod.metadata.uid ?? ""}/`;
const keyOf = (pod: Pod, volumeName: string, sourceIndex: number) => `${podPrefix(pod)}${volumeName}/${sourceIndex}`;

class RequestStore implements ReflectorStore<PodCertificateRequest & KubeObject> {
  readonly items = new Map<string, PodCertificateRequest>();
  /** Resolved by the first list. */
  readonly listed = Promise.withResolvers<void>();
  constructor(private readonly changed: (podUID: string) => void) {}
  replace(items: PodCertificateRequest[]): void {
    this.items.clear();
    for (const r of items) this.add(r);
    this.listed.resolve();
  }
  add(r: PodCertificateRequest): void {
    this.items.set(`${r.metadata?.namespace}/${r.metadata?.name}`, r);
    this.changed(r.spec?.podUID ?? "");
  }
  update(r: PodCertificateRequest): void {
    this.add(r);
  }
  delete(r: PodCertificateRequest): void {
    this.items.delete(`${r.metadata?.namespace}/${r.metadata?.name}`);
    this.changed(r.spec?.podUID ?? "");
  }
}

export function createPodCertificates(deps: PodCertificatesDeps): PodCertificates {
  const { client, clock, log } = deps;
  const generate = deps.generateKeyAndProof ?? realGenerate;
  const records = new Map<string, ProjectionRecord>();
  const queue = new ProjectionQueue(clock);
  const jitter = () => Math.floor(deps.random() * MAX_JITTER_MS);
  const requests = new RequestStore((podUID) => queueAllProjectionsForPod(podUID));
  let reflector: Reflector | undefined;
  const started = Promise.withResolvers<Reflector>();

  function queueAllProjectionsForPod(podUID: string): void {
    for (const [key, rec] of records) if (rec.pod.metadata.uid === podUID) queue.add(key);
  }

  /** TrackPod: a record for every podCertificate source of the pod, each queued. */
  function trackPod(pod: Pod): void {
    if (!reflector) {
      reflector = createReflector({ client, path: `/apis/${PCR_API_VERSION}/podcertificaterequests`, fieldSelector: `spec.nodeName=${deps.nodeName}`, store: requests, clock, random: deps.random, log, name: "*v1.PodCertificateRequest" });
      started.resolve(reflector);
    }
    for (const volume of pod.spec.volumes ?? []) {
      (volume.projected?.sources ?? []).forEach((s, sourceIndex) => {
        if (!s.podCertificate) return;
        const key = keyOf(pod, volume.name, sourceIndex);
        if (!records.has(key)) records.set(key, { pod, volumeName: volume.name, sourceIndex, source: s.podCertificate, state: { kind: "initial" }, waiters: new Set() });
        queue.add(key);
      });
    }
  }

  function setState(rec: ProjectionRecord, next: CredState): void {
    if (next === rec.state) return;
    rec.state = next;
    for (const wake of rec.waiters) wake();
  }

  function emit(rec: ProjectionRecord, events: { reason: string; message: string }[]): void {
    for (const e of events) deps.recordEvent(rec.pod, e.reason, e.message);
  }

  /** Creates a request for rec (initial or refresh) and moves it to wait / waitRefresh. */
  async function request(key: string, rec: ProjectionRecord, state: Extract<CredState, { kind: "initial" | "fresh" }>, signal: AbortSignal): Promise<void> {
    const identity = await podIdentity(client, rec.pod, deps.nodeName, signal);
    let created: Awaited<ReturnType<typeof createPodCertificateRequest>>;
    try {
      created = await createPodCertificateRequest(client, generate, rec.pod, deps.nodeName, identity, rec.source, signal);
    } catch (err) {
      const which = state.kind === "initial" ? "initial" : "refresh";
      throw new Error(`while creating ${which} PodCertificateRequest: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (records.get(key) !== rec) return; // forgotten meanwhile: the key goes with the record
    const createdAt = Number.isNaN(created.createdAt) ? clock.now() : created.createdAt;
    setState(rec, requested(state, created.privateKey, created.name, createdAt + ASSUME_DELETED_MS + jitter()));
    log.debug("PodCertificateRequest created", { key, pcr: `${rec.pod.metadata.namespace}/${created.name}`, state: rec.state.kind }, 4);
  }

  /** handleProjection: one step of the record's state machine. */
  async function handleProjection(key: string, signal: AbortSignal): Promise<void> {
    const rec = records.get(key);
    if (!rec) return;
    const state = rec.state;
    const namespace = rec.pod.metadata.namespace ?? "";
    switch (state.kind) {
      case "initial":
        return request(key, rec, state, signal);
      case "wait":
      case "waitRefresh": {
        const name = state.kind === "wait" ? state.pcrName : state.refreshPCRName;
        const seen = observeRequest(state, namespace, requests.items.get(`${namespace}/${name}`), clock.now(), jitter());
        setState(rec, seen.next);
        emit(rec, seen.events);
        if (seen.error) throw new Error(seen.error);
        return;
      }
      case "denied":
      case "failed":
        return;
      case "fresh":
        if (clock.now() < state.beginRefreshAt) return;
        emit(rec, lateEvents(state, clock.now()));
        return request(key, rec, state, signal);
    }
  }

  /** The watch once the first pod was tracked; undefined when the signal aborted first. */
  function whenStarted(signal: AbortSignal): Promise<Reflector | undefined> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve(undefined);
      signal.addEventListener("abort", () => resolve(undefined), { once: true });
      void started.promise.then(resolve);
    });
  }

  /** The kubelet's worker starts once the watch has listed (WaitForCacheSync). */
  async function worker(signal: AbortSignal): Promise<void> {
    if (!(await whenStarted(signal))) return;
    await new Promise<void>((resolve) => {
      signal.addEventListener("abort", () => resolve(), { once: true });
      void requests.listed.promise.then(resolve);
    });
    for (;;) {
      let key: string;
      try {
        key = await queue.get(signal);
      } catch {
        return;
      }
      try {
        await handleProjection(key, signal);
        queue.forget(key);
      } catch (err) {
        if (signal.aborted) return;
        const rec = records.get(key);
        log.error("Error while handling podCertificate projected volume source; retrying after a backoff", {
          pod: rec ? `${rec.pod.metadata.namespace}/${rec.pod.metadata.name}` : key,
          volume: rec?.volumeName,
          sourceIndex: rec?.sourceIndex,
          err: err instanceof Error ? err.message : String(err),
        });
        if (records.has(key)) queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  }

  /** Resolves when rec leaves initial/wait, after ms, or when the signal aborts. */
  function stateChange(rec: ProjectionRecord, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        timer.cancel();
        rec.waiters.delete(finish);
        signal?.removeEventListener("abort", finish);
        resolve();
      };
      const timer = clock.setTimer(ms, finish);
      rec.waiters.add(finish);
      signal?.addEventListener("abort", finish, { once: true });
    });
  }

  return {
    async credentialBundle(pod, volumeName, sourceIndex, signal) {
      const key = keyOf(pod, volumeName, sourceIndex);
      if (!records.has(key)) trackPod(pod);
      const rec = records.get(key);
      if (!rec) throw new Error(`no credentials yet for key=${key}`);
      const deadline = clock.now() + ISSUE_WAIT_MS;
      while ((rec.state.kind === "initial" || rec.state.kind === "wait") && clock.now() < deadline && !signal?.aborted && records.get(key) === rec) {
        await stateChange(rec, deadline - clock.now(), signal);
      }
      signal?.throwIfAborted();
      return credentialBundle(rec.state);
    },
    forgetPod(uid) {
      for (const [key, rec] of records) {
        if (rec.pod.metadata.uid !== uid) continue;
        records.delete(key);
        queue.removePrefix(podPrefix(rec.pod));
        for (const wake of rec.waiters) wake();
      }
    },
    metricReport() {
      const counts = new Map<string, { signerName: string; state: string; count: number }>();
      for (const rec of records.values()) {
        const state = metricsState(rec.state, clock.now());
        const k = `${rec.source.signerName}\u0000${state}`;
        const entry = counts.get(k) ?? { signerName: rec.source.signerName, state, count: 0 };
        entry.count++;
        counts.set(k, entry);
      }
      return [...counts.values()];
    },
    async run(signal) {
      const watching = whenStarted(signal).then((r) => r?.run(signal));
      const refreshing = (async () => {
        // wait.JitterUntil(runRefreshPass, 1 minute, jitter 1.0): every 1-2 minutes.
        while (await delay(clock, REFRESH_PASS_MS + deps.random() * REFRESH_PASS_MS, signal)) {
          for (const key of records.keys()) queue.add(key);
        }
      })();
      await Promise.all([worker(signal), refreshing, watching]);
      queue.shutDown();
      log.info("podcertificate.IssuingManager shut down");
    },
  };
}
