/**
 * A source of pods (the kubelet's config sources: file, http, and the apiserver to come). Each
 * source sends full snapshots of its pods to PodConfig, which merges them into one PodStorage; a
 * source that never sends keeps every source from counting as seen, so bunlet deletes nothing.
 */
import type { ManifestError } from "./errors.ts";

export interface PodSource {
  /** The source's name in PodUpdates and config.source annotations ("file", "http", "api"). */
  readonly name: string;
  /** Sends snapshots until the signal aborts; resolves once the source has stopped. */
  run(signal: AbortSignal): Promise<void>;
  /** Manifests that currently fail to decode, by file path or URL. */
  manifestErrors(): Map<string, ManifestError>;
  /** Errors of broken manifests whose last good pod keeps running, by that pod's UID. */
  keptPodErrors?(): Map<string, ManifestError>;
}
