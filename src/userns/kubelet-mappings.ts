/**
 * The node's IDs for pods (the kubelet's getKubeletMappings, kubelet_pods.go): when a `kubelet`
 * user exists and the `getsubids` tool (shadow's uidmap package; it reads /etc/subuid and
 * /etc/subgid, or whatever libsubid is set up to ask) is installed, the one range it gives that
 * user, identical for UIDs and GIDs; otherwise the default: every ID from idsPerPod up to 2^32.
 * As the kubelet, a `kubelet` user with getsubids installed but no answer is an error, not the
 * default: the remote libsubid source may be down.
 */

/** kubeletUser. */
const KUBELET_USER = "kubelet";

export interface KubeletMappingsDeps {
  /** Whether the user exists (the kubelet's user.Lookup: /etc/passwd). */
  userExists(name: string): boolean;
  /** The getsubids executable, or undefined when it is not on PATH. */
  findGetsubids(): string | undefined;
  /** Runs it; resolves with stdout, rejects when it exits non-zero. */
  run(argv: readonly string[]): Promise<string>;
}

export interface KubeletMappings {
  firstId: number;
  length: number;
  /** Where they came from, for the log line. */
  source: "default" | "getsubids";
}

/** The default range: [idsPerPod, 2^32). */
export function defaultMappings(idsPerPod: number): KubeletMappings {
  return { firstId: idsPerPod, length: 2 ** 32 - idsPerPod, source: "default" };
}

/**
 * parseGetSubIdsOutput: exactly one line `0: kubelet <first> <count>`.
 */
export function parseGetSubIdsOutput(input: string): { firstId: number; length: number } {
  const lines = input.replace(/^\n+|\n+$/g, "").split("\n");
  if (lines.length !== 1) throw new Error(`error parsing line ${JSON.stringify(input)}: it must contain only one line`);
  const parts = lines[0]!.trim().split(/\s+/);
  if (parts.length !== 4) throw new Error(`invalid line ${JSON.stringify(input)}`);
  const uint32 = (s: string) => {
    if (!/^\d+$/.test(s) || Number(s) > 0xffff_ffff) throw new Error(`error parsing line ${JSON.stringify(input)}: ${JSON.stringify(s)} is not a 32-bit unsigned integer`);
    return Number(s);
  };
  return { firstId: uint32(parts[2]!), length: uint32(parts[3]!) };
}

export async function getKubeletMappings(idsPerPod: number, deps: KubeletMappingsDeps): Promise<KubeletMappings> {
  if (!deps.userExists(KUBELET_USER)) return defaultMappings(idsPerPod);
  const getsubids = deps.findGetsubids();
  if (getsubids === undefined) return defaultMappings(idsPerPod);
  let uids: string;
  let gids: string;
  try {
    uids = await deps.run([getsubids, KUBELET_USER]);
  } catch (err) {
    throw new Error(`error retrieving additional uids for user "${KUBELET_USER}": ${(err as Error).message}`);
  }
  try {
    gids = await deps.run([getsubids, "-g", KUBELET_USER]);
  } catch {
    throw new Error(`error retrieving additional gids for user "${KUBELET_USER}"`);
  }
  if (uids !== gids) throw new Error(`mismatched subuids and subgids for user "${KUBELET_USER}"`);
  return { ...parseGetSubIdsOutput(uids), source: "getsubids" };
}

/** A user in a passwd file's text (name is the first field). */
export function passwdHasUser(passwd: string, name: string): boolean {
  return passwd.split("\n").some((line) => line.split(":")[0] === name);
}
