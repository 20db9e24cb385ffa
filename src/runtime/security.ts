/**
 * Security settings of sandboxes and containers (kuberuntime security_context.go and
 * pkg/securitycontext): the container's context overrides the pod's for user, group, non-root
 * and seccomp; namespaces follow hostNetwork/hostPID/hostIPC/shareProcessNamespace.
 */
import { join } from "node:path";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Container, Pod } from "../api/index.ts";
import {
  NamespaceMode,
  SecurityProfile_ProfileType,
  type LinuxContainerSecurityContextSchema,
  type NamespaceOptionSchema,
  type SecurityProfileSchema,
} from "../cri/index.ts";
import { containerConfigError } from "./errors.ts";
import type { UserNamespaceInit } from "./userns.ts";

type SecurityProfileInit = MessageInitShape<typeof SecurityProfileSchema>;

/** userns: the pod's userns_options (the user namespace manager's answer), the same for the sandbox and its containers. */
function namespaceOptions(pod: Pod, userns: UserNamespaceInit | undefined): MessageInitShape<typeof NamespaceOptionSchema> {
  return {
    network: pod.spec.hostNetwork ? NamespaceMode.NODE : NamespaceMode.POD,
    ipc: pod.spec.hostIPC ? NamespaceMode.NODE : NamespaceMode.POD,
    // PID does not default to the pod namespace: each container has its own unless shared.
    pid: pod.spec.hostPID ? NamespaceMode.NODE : pod.spec.shareProcessNamespace ? NamespaceMode.POD : NamespaceMode.CONTAINER,
    usernsOptions: userns,
  };
}

function hasPrivilegedContainer(pod: Pod): boolean {
  const all = [...(pod.spec.initContainers ?? []), ...pod.spec.containers, ...(pod.spec.ephemeralContainers ?? [])];
  return all.some((c) => c.securityContext?.privileged === true);
}

/** fsGroup first, then supplementalGroups. */
function supplementalGroups(pod: Pod): bigint[] {
  const sc = pod.spec.securityContext;
  const groups: bigint[] = [];
  if (sc?.fsGroup !== undefined) groups.push(BigInt(sc.fsGroup));
  for (const g of sc?.supplementalGroups ?? []) groups.push(BigInt(g));
  return groups;
}

function seccompProfile(profile: { type: string; localhostProfile?: string } | undefined, seccompRoot: string): SecurityProfileInit {
  switch (profile?.type) {
    case "RuntimeDefault":
      return { profileType: SecurityProfile_ProfileType.RuntimeDefault };
    case "Localhost":
      // An empty name would hand the runtime the profile directory itself, which ran the
      // container unconfined (CVE-2023-2431); the kubelet refuses the container.
      if (!profile.localhostProfile) throw containerConfigError("localhostProfile must be set if seccompProfile type is Localhost.");
      return { profileType: SecurityProfile_ProfileType.Localhost, localhostRef: join(seccompRoot, profile.localhostProfile) };
    default:
      // The kubelet's seccompDefault is off: no profile means unconfined.
      return { profileType: SecurityProfile_ProfileType.Unconfined };
  }
}

/** The pod's and the container's settings merged (securitycontext.DetermineEffectiveSecurityContext). */
function effective(pod: Pod, container: Container) {
  const p = pod.spec.securityContext ?? {};
  const c = container.securityContext ?? {};
  return {
    ...c,
    runAsUser: c.runAsUser ?? p.runAsUser,
    runAsGroup: c.runAsGroup ?? p.runAsGroup,
    runAsNonRoot: c.runAsNonRoot ?? p.runAsNonRoot,
    seccompProfile: c.seccompProfile ?? p.seccompProfile,
  };
}

/** validation.IsValidUserID's upper bound (math.MaxInt32). */
const MAX_USER_ID = 2147483647n;

/** What the image says about its user (ImageStatus uid/username); neither set means root. */
export interface ImageUser {
  uid?: bigint;
  username: string;
}

const DEFAULT_MASKED_PATHS = [
  "/proc/asound",
  "/proc/acpi",
  "/proc/kcore",
  "/proc/keys",
  "/proc/latency_stats",
  "/proc/timer_list",
  "/proc/timer_stats",
  "/proc/sched_debug",
  "/proc/scsi",
  "/sys/firmware",
  "/sys/devices/virtual/powercap",
];
const DEFAULT_READONLY_PATHS = ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"];

export function containerSecurityContext(
  pod: Pod,
  container: Container,
  image: ImageUser,
  seccompRoot: string,
  userns?: UserNamespaceInit,
): MessageInitShape<typeof LinuxContainerSecurityContextSchema> {
  const sc = effective(pod, container);
  verifyRunAsNonRoot(pod, container, sc, image);
  const unmasked = sc.procMount === "Unmasked";
  return {
    capabilities: sc.capabilities ? { addCapabilities: sc.capabilities.add ?? [], dropCapabilities: sc.capabilities.drop ?? [] } : undefined,
    privileged: sc.privileged ?? false,
    readonlyRootfs: sc.readOnlyRootFilesystem ?? false,
    // An explicit user wins; otherwise the image's user (numeric or by name).
    runAsUser: sc.runAsUser !== undefined ? { value: BigInt(sc.runAsUser) } : image.uid !== undefined ? { value: image.uid } : undefined,
    runAsUsername: sc.runAsUser === undefined ? image.username : "",
    runAsGroup: sc.runAsGroup !== undefined ? { value: BigInt(sc.runAsGroup) } : undefined,
    namespaceOptions: namespaceOptions(pod, userns),
    supplementalGroups: supplementalGroups(pod),
    seccomp: seccompProfile(sc.seccompProfile, seccompRoot),
    noNewPrivs: sc.allowPrivilegeEscalation === false,
    maskedPaths: unmasked ? [] : DEFAULT_MASKED_PATHS,
    readonlyPaths: unmasked ? [] : DEFAULT_READONLY_PATHS,
  };
}

function verifyRunAsNonRoot(pod: Pod, container: Container, sc: ReturnType<typeof effective>, image: ImageUser): void {
  if (!sc.runAsNonRoot) return;
  const where = `(pod: "${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})", container: ${container.name})`;
  if (sc.runAsUser !== undefined) {
    if (sc.runAsUser === 0) throw containerConfigError(`container's runAsUser breaks non-root policy ${where}`);
    return;
  }
  if (image.uid === undefined && image.username) {
    throw containerConfigError(
      `container has runAsNonRoot and image has non-numeric user (${image.username}), cannot verify user is non-root ${where}`,
    );
  }
  // An image that names no user at all runs as root (the kubelet's getImageUser answers uid 0).
  const uid = image.uid ?? 0n;
  if (uid === 0n) throw containerConfigError(`container has runAsNonRoot and image will run as root ${where}`);
  if (uid < 0n || uid > MAX_USER_ID) {
    throw containerConfigError(
      `container has runAsNonRoot and image has an invalid user id (${uid}). (Must be 1-(${MAX_USER_ID})): must be between 0 and ${MAX_USER_ID}, inclusive ${where}`,
    );
  }
}

/** The sandbox's security: privileged if any container is, RuntimeDefault seccomp for the pause process. */
export function sandboxSecurityContext(pod: Pod, userns?: UserNamespaceInit) {
  const p = pod.spec.securityContext;
  return {
    privileged: hasPrivilegedContainer(pod),
    seccompProfilePath: "runtime/default",
    seccomp: { profileType: SecurityProfile_ProfileType.RuntimeDefault },
    runAsUser: p?.runAsUser !== undefined ? { value: BigInt(p.runAsUser) } : undefined,
    runAsGroup: p?.runAsGroup !== undefined ? { value: BigInt(p.runAsGroup) } : undefined,
    namespaceOptions: namespaceOptions(pod, userns),
    supplementalGroups: supplementalGroups(pod),
  };
}
