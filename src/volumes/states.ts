/**
 * The volume manager's two views for volume_manager_total_volumes (the kubelet's
 * desired_state_of_world and actual_state_of_world): the volumes each pod's containers mount,
 * recorded when its volumes are set up, and those set up successfully; a pod's entries go when
 * its volumes are torn down.
 */
export type VolumeState = "desired_state_of_world" | "actual_state_of_world";

export class VolumeStates {
  /** pod UID → volume name → plugin name, per state. */
  readonly #states: Record<VolumeState, Map<string, Map<string, string>>> = { desired_state_of_world: new Map(), actual_state_of_world: new Map() };

  record(state: VolumeState, uid: string, volume: string, plugin: string): void {
    const pod = this.#states[state].get(uid) ?? new Map<string, string>();
    pod.set(volume, plugin);
    this.#states[state].set(uid, pod);
  }

  remove(state: VolumeState, uid: string, volume: string): void {
    this.#states[state].get(uid)?.delete(volume);
  }

  forget(uid: string): void {
    for (const map of Object.values(this.#states)) map.delete(uid);
  }

  /** Volumes per plugin and state. */
  counts(): { plugin: string; state: VolumeState; count: number }[] {
    const out: { plugin: string; state: VolumeState; count: number }[] = [];
    for (const [state, pods] of Object.entries(this.#states) as [VolumeState, Map<string, Map<string, string>>][]) {
      const byPlugin = new Map<string, number>();
      for (const volumes of pods.values()) for (const plugin of volumes.values()) byPlugin.set(plugin, (byPlugin.get(plugin) ?? 0) + 1);
      for (const [plugin, count] of byPlugin) out.push({ plugin, state, count });
    }
    return out;
  }
}
