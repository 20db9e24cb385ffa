/**
 * Beyond the kubelet (issue 27, --offline-start): an object a pod reads goes through the node's
 * checkpoint. While the checkpoint's pods run (before the apiserver's first list of pods) the kept
 * copy answers, as a read of a frozen apiserver could hang; after that the apiserver answers, its
 * answer is recorded (NotFound as a deletion), and the kept copy answers only when the apiserver
 * cannot be read for any reason but NotFound.
 */
import type { Checkpoint } from "../checkpoint/index.ts";
import type { Logger } from "../lib/index.ts";

export interface CheckpointedRead<T> {
  /** The apiserver's answer; undefined for NotFound. */
  read(): Promise<T | undefined>;
  kept(): T | undefined;
  record(obj: T | undefined): void;
}

export async function throughCheckpoint<T>(
  checkpoint: Pick<Checkpoint, "listed"> | undefined,
  io: CheckpointedRead<T>,
  what: Record<string, string>,
  log: Logger,
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
