export type { Clock, Logger } from "../lib/index.ts";

/** Resolves when containerd answers (a CRI Version call); rejects otherwise. Must honour `signal`. */
export type ReadinessProbe = (signal: AbortSignal) => Promise<void>;
