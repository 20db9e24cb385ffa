/**
 * The fake runtime's records: plain objects a test can read through `fake.state`. States use the
 * CRI enums so assertions read like the client code (`ContainerState.CONTAINER_EXITED`). Times are
 * nanoseconds since the epoch, as on the wire.
 */
import type { ContainerConfig, Mount, NamespaceOption, PodSandboxConfig } from "../../src/cri/index.ts";
import type { ContainerState, PodSandboxState } from "../../src/cri/index.ts";
import type { FakeImage } from "./images.ts";

export type { FakeImage };

export interface FakeSandbox {
  id: string;
  name: string;
  uid: string;
  namespace: string;
  attempt: number;
  state: PodSandboxState;
  createdAt: bigint;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  runtimeHandler: string;
  /** "" for host-network sandboxes. */
  ip: string;
  hostNetwork: boolean;
  /** Set by StopPodSandbox (network torn down): the status then reports no IP, as containerd does. */
  netnsClosed: boolean;
  namespaceOptions: NamespaceOption | undefined;
  logDirectory: string;
  hostname: string;
  config: PodSandboxConfig;
}

export interface FakeContainer {
  id: string;
  podSandboxId: string;
  name: string;
  attempt: number;
  /** The image as the CreateContainer request named it. */
  image: string;
  /** The image id ("sha256:…") the reference resolved to at create time. */
  imageId: string;
  state: ContainerState;
  createdAt: bigint;
  startedAt: bigint;
  finishedAt: bigint;
  exitCode: number;
  reason: string;
  message: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  logPath: string;
  command: string[];
  args: string[];
  mounts: Mount[];
  config: ContainerConfig;
}

/** What `fake.state` shows: snapshots, newest last, safe to keep and compare. */
export interface FakeCriState {
  readonly sandboxes: FakeSandbox[];
  readonly containers: FakeContainer[];
  readonly images: FakeImage[];
  sandbox(id: string): FakeSandbox | undefined;
  container(id: string): FakeContainer | undefined;
}
