/**
 * Two manifest files that define the same pod (a `web.yaml.bak` beside `web.yaml`): the first in
 * file-name order wins and the later one is rejected, with both names. The kubelet drops one of
 * the two pods at every merge (which one depends on map order) and logs it each time; bunlet keeps
 * the choice stable and reports it once, as a manifest error of the later file.
 */
import { podRef, type Pod } from "../api/index.ts";
import { ManifestError } from "./errors.ts";

export interface DuplicateSplit {
  /** The pods to send, in file order, without the later duplicates. */
  pods: Pod[];
  /** Rejected later files, each with the error naming the file that won. */
  duplicates: Map<string, ManifestError>;
}

/** Splits (file, pod) entries, in file-name order, into the pods to run and the duplicates. */
export function splitDuplicates(entries: readonly (readonly [string, Pod])[]): DuplicateSplit {
  const winner = new Map<string, string>();
  const pods: Pod[] = [];
  const duplicates = new Map<string, ManifestError>();
  for (const [file, pod] of entries) {
    const ref = String(podRef(pod));
    const first = winner.get(ref);
    if (first === undefined) {
      winner.set(ref, file);
      pods.push(pod);
      continue;
    }
    duplicates.set(
      file,
      new ManifestError(file, [
        {
          code: "Duplicate",
          field: "metadata.name",
          detail: `Duplicate value: pod ${ref} is also defined by ${first}, which wins (files are read in name order); this file is ignored`,
        },
      ]),
    );
  }
  return { pods, duplicates };
}
