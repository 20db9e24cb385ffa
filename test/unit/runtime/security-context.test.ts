/**
 * The container security context against the kubelet's own CVEs and conformance specs:
 * runAsNonRoot with an image that names no user (it runs as root, so it is refused: "Security
 * Context: runAsNonRoot should not run without a specified user ID"), and a Localhost seccomp
 * profile with an empty name (CVE-2023-2431: it ran unconfined), at pod and container level.
 */
import { describe, expect, test } from "bun:test";
import type { Container, Pod } from "../../../src/api/index.ts";
import { SecurityProfile_ProfileType } from "../../../src/cri/index.ts";
import { SyncError } from "../../../src/runtime/errors.ts";
import { containerSecurityContext, type ImageUser } from "../../../src/runtime/security.ts";
import { makePod } from "../../fixtures/pods.ts";

const pod = (container: Container, podSc: Pod["spec"]["securityContext"] = undefined): Pod =>
  makePod({ name: "p", namespace: "ns", metadata: { uid: "u1" }, spec: { containers: [container], securityContext: podSc } });
const where = '(pod: "p_ns(u1)", container: c)';

function configError(p: Pod, image: ImageUser): SyncError {
  try {
    containerSecurityContext(p, p.spec.containers[0]!, image, "/var/lib/bunlet/seccomp");
  } catch (err) {
    if (err instanceof SyncError) return err;
    throw err;
  }
  throw new Error("expected a CreateContainerConfigError, the security context was built");
}

describe("runAsNonRoot checks the image's user (verifyRunAsNonRoot)", () => {
  const nonRoot: Container = { name: "c", securityContext: { runAsNonRoot: true } };

  test.each([
    ["an image that names no user (it runs as root)", { username: "" }, `container has runAsNonRoot and image will run as root ${where}`],
    ["an image whose user is uid 0", { uid: 0n, username: "" }, `container has runAsNonRoot and image will run as root ${where}`],
    [
      "an image with a user name",
      { username: "nobody" },
      `container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root ${where}`,
    ],
    [
      "an image whose uid is out of range",
      { uid: 2147483648n, username: "" },
      `container has runAsNonRoot and image has an invalid user id (2147483648). (Must be 1-(2147483647)): must be between 0 and 2147483647, inclusive ${where}`,
    ],
  ])("refuses %s with CreateContainerConfigError", (_name, image, message) => {
    const err = configError(pod(nonRoot), image);
    expect(err.reason).toBe("CreateContainerConfigError");
    expect(err.message).toBe(message);
  });

  test("refuses an explicit runAsUser 0, from the container or the pod", () => {
    const explicit: Container = { name: "c", securityContext: { runAsNonRoot: true, runAsUser: 0 } };
    expect(configError(pod(explicit), { uid: 1000n, username: "" }).message).toBe(`container's runAsUser breaks non-root policy ${where}`);
    const fromPod = pod({ name: "c" }, { runAsNonRoot: true, runAsUser: 0 });
    expect(configError(fromPod, { uid: 1000n, username: "" }).message).toBe(`container's runAsUser breaks non-root policy ${where}`);
  });

  test("a non-root runAsUser passes whatever the image says, and is what the runtime is given", () => {
    const explicit: Container = { name: "c", securityContext: { runAsNonRoot: true, runAsUser: 1234 } };
    const sc = containerSecurityContext(pod(explicit), explicit, { username: "" }, "/s");
    expect(sc.runAsUser).toEqual({ value: 1234n });
    expect(sc.runAsUsername).toBe("");
  });

  test("a non-root image user passes and is the user the container runs as", () => {
    const sc = containerSecurityContext(pod(nonRoot), nonRoot, { uid: 1000n, username: "" }, "/s");
    expect(sc.runAsUser).toEqual({ value: 1000n });
  });

  test("without runAsNonRoot a root image starts", () => {
    const plain: Container = { name: "c" };
    expect(() => containerSecurityContext(pod(plain), plain, { username: "" }, "/s")).not.toThrow();
  });
});

describe("a Localhost seccomp profile needs a name (CVE-2023-2431)", () => {
  const localhost = (localhostProfile?: string) => ({ type: "Localhost", ...(localhostProfile !== undefined && { localhostProfile }) });

  test.each([
    ["container level, empty name", pod({ name: "c", securityContext: { seccompProfile: localhost("") } })],
    ["container level, no name", pod({ name: "c", securityContext: { seccompProfile: localhost() } })],
    ["pod level, empty name", pod({ name: "c" }, { seccompProfile: localhost("") })],
    ["pod level, no name", pod({ name: "c" }, { seccompProfile: localhost() })],
  ])("%s: CreateContainerConfigError, never an unconfined container", (_name, p) => {
    const err = configError(p, { username: "" });
    expect(err.reason).toBe("CreateContainerConfigError");
    expect(err.message).toBe("localhostProfile must be set if seccompProfile type is Localhost.");
  });

  test("a named profile is the file under the seccomp root; the container's profile wins over the pod's", () => {
    const p = pod({ name: "c", securityContext: { seccompProfile: localhost("profiles/audit.json") } }, { seccompProfile: localhost("") });
    const sc = containerSecurityContext(p, p.spec.containers[0]!, { username: "" }, "/var/lib/bunlet/seccomp");
    expect(sc.seccomp).toEqual({ profileType: SecurityProfile_ProfileType.Localhost, localhostRef: "/var/lib/bunlet/seccomp/profiles/audit.json" });
  });
});
