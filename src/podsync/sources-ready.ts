/**
 * "Have all config sources reported at least once?" (pkg/kubelet/config/sources.go). The sync loop
 * records every source it receives an update from; the pod config says whether that set covers
 * every configured source. Until it does, bunlet deletes nothing: a source that has not spoken yet
 * may still want the pods that look orphaned.
 */
export class SourcesReady {
  #seen = new Set<string>();
  #ready = false;
  readonly #seenAllSources: (seen: Set<string>) => boolean;

  constructor(seenAllSources: (seen: Set<string>) => boolean) {
    this.#seenAllSources = seenAllSources;
  }

  addSource(source: string): void {
    this.#seen.add(source);
  }

  /** Once true it stays true (sources never become unseen). */
  allReady(): boolean {
    if (!this.#ready) this.#ready = this.#seenAllSources(new Set(this.#seen));
    return this.#ready;
  }
}
