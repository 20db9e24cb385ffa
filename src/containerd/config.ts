import { containerdPaths } from "./paths.ts";

/**
 * The default sandbox (pause) image: kubeadm 1.37's (`registry.k8s.io/pause:3.10.2`, its
 * PauseVersion), so a node that can reach registry.k8s.io pulls it as a kubeadm node's containerd
 * would. scripts/build-images.sh builds the bundled pause tarball under this name, so an
 * air-gapped node has it from `<root-dir>/images/pause.tar`.
 */
export const PAUSE_IMAGE = "registry.k8s.io/pause:3.10.2";
/** The busybox image that scripts/build-images.sh builds locally. */
export const BUSYBOX_IMAGE = "docker.io/library/busybox:1.36";
const DEFAULT_CNI_BIN_DIR = "/usr/lib/cni";
const DEFAULT_REGISTRY_MIRRORS: readonly string[] = ["127.0.0.1:5000"];

export interface ContainerdConfigOptions {
  rootDir: string;
  /** `--pod-infra-container-image`; default PAUSE_IMAGE. */
  sandboxImage?: string;
  /** Default /usr/lib/cni (Debian's containernetworking-plugins). */
  cniBinDir?: string;
  /** The host's CNI conf dir (--cni-conf-dir, a cluster CNI's); default `<rootDir>/containerd/cni/net.d`, bunlet's own. */
  cniConfDir?: string;
  /** `host:port` of plain-http registries, each mirrored to `http://host:port`. Default 127.0.0.1:5000. */
  registryMirrors?: readonly string[];
  /** 2 for containerd 1.6 and 1.7 (the default), 3 for containerd 2.x; see configVersionFor. */
  configVersion?: ContainerdConfigVersion;
  /** containerd's log level ([debug] level); containerd's default (info) when absent. */
  logLevel?: string;
  /** More CRI runtime handlers, each runc under another name (what a RuntimeClass's handler names). */
  extraRuncHandlers?: readonly string[];
  /** runc's SystemdCgroup option: true when the kubelet's cgroupDriver is systemd, so both drivers agree. */
  systemdCgroup?: boolean;
  /**
   * The runc every handler runs (the runc options' BinaryName); default `runc` on containerd's
   * PATH. User namespaces need runc 1.2 or later (idmapped mounts): see docs/userns.md.
   */
  runcBinary?: string;
}

/** A runc handler's options: the cgroup driver and, when given, the runc binary. */
function runcOptions(opts: ContainerdConfigOptions): string[] {
  return [`  SystemdCgroup = ${opts.systemdCgroup === true}`, ...(opts.runcBinary ? [`  BinaryName = ${str(opts.runcBinary)}`] : [])];
}

export type ContainerdConfigVersion = 2 | 3;

const CRI = `plugins."io.containerd.grpc.v1.cri"`;

/** TOML 1.0 allows no control character but tab in strings and comments. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const controlCharacters = /[\u0000-\u0008\u000a-\u001f\u007f]/g;
const unicodeEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** A TOML basic string of any path or name: quote, backslash and control characters escaped. */
function str(value: string): string {
  return `"${value.replace(/["\\]/g, "\\$&").replace(controlCharacters, unicodeEscape)}"`;
}

/** A comment line; control characters (a newline would end it) shown as escapes. */
function comment(text: string): string {
  return `# ${text.replace(controlCharacters, unicodeEscape)}`;
}

/**
 * Renders a config whose every path lives under `<rootDir>/containerd`, so several instances (and
 * a system containerd) can share a host: version 2 (containerd 1.6 and 1.7) unless
 * `configVersion` asks for 3 (containerd 2.x, whose CRI plugin is split in two).
 */
export function renderContainerdConfig(opts: ContainerdConfigOptions): string {
  const paths = containerdPaths(opts.rootDir);
  const version = opts.configVersion ?? 2;
  const lines = [
    "# Rendered by bunlet; edits are overwritten at start-up.",
    ...(paths.socketFallbackReason ? [comment(paths.socketFallbackReason)] : []),
    `version = ${version}`,
    `root = ${str(paths.root)}`,
    `state = ${str(paths.state)}`,
    "",
    "[grpc]",
    `  address = ${str(paths.socketPath)}`,
    "",
    ...(opts.logLevel ? ["[debug]", `  level = ${str(opts.logLevel)}`, ""] : []),
    `[plugins."io.containerd.internal.v1.opt"]`,
    `  path = ${str(paths.optDir)}`,
    "",
    ...(version === 3 ? criV3(opts) : criV2(opts)),
  ];
  return lines.join("\n") + "\n";
}

function criV2(opts: ContainerdConfigOptions): string[] {
  const paths = containerdPaths(opts.rootDir);
  const mirrors = opts.registryMirrors ?? DEFAULT_REGISTRY_MIRRORS;
  const lines = [
    `[${CRI}]`,
    `  sandbox_image = ${str(opts.sandboxImage ?? PAUSE_IMAGE)}`,
    // Without it RunPodSandbox fails in a container ("can't get final child's PID from pipe").
    "  restrict_oom_score_adj = true",
    // Pod network namespaces under our state dir, not the host-wide /var/run/netns.
    "  netns_mounts_under_state_dir = true",
    "",
    `[${CRI}.containerd]`,
    `  snapshotter = "overlayfs"`,
    `  default_runtime_name = "runc"`,
    "",
    `[${CRI}.containerd.runtimes.runc]`,
    `  runtime_type = "io.containerd.runc.v2"`,
    "",
    `[${CRI}.containerd.runtimes.runc.options]`,
    ...runcOptions(opts),
    "",
    ...extraHandlers(`${CRI}.containerd.runtimes`, opts),
    `[${CRI}.cni]`,
    `  bin_dir = ${str(opts.cniBinDir ?? DEFAULT_CNI_BIN_DIR)}`,
    `  conf_dir = ${str(opts.cniConfDir || paths.cniConfDir)}`,
    "  max_conf_num = 1",
    "",
    `[${CRI}.registry]`,
  ];
  for (const host of mirrors) {
    lines.push(
      "",
      `[${CRI}.registry.mirrors.${str(host)}]`,
      `  endpoint = [${str(`http://${host}`)}]`,
    );
  }
  return lines;
}

/** A runc runtime under each extra handler name. */
function extraHandlers(table: string, opts: ContainerdConfigOptions): string[] {
  const names = opts.extraRuncHandlers ?? [];
  return names.flatMap((name) => [
    `[${table}.${str(name)}]`,
    `  runtime_type = "io.containerd.runc.v2"`,
    "",
    `[${table}.${str(name)}.options]`,
    ...runcOptions(opts),
    "",
  ]);
}

const IMAGES = `plugins."io.containerd.cri.v1.images"`;
const RUNTIME = `plugins."io.containerd.cri.v1.runtime"`;

/** The same settings in containerd 2.x's layout (what `containerd config migrate` makes of criV2). */
function criV3(opts: ContainerdConfigOptions): string[] {
  const paths = containerdPaths(opts.rootDir);
  const lines = [
    // containerd 2 enables NRI by default, on a host-wide socket (/var/run/nri/nri.sock).
    `[plugins."io.containerd.nri.v1.nri"]`,
    "  disable = true",
    "",
    `[${IMAGES}]`,
    `  snapshotter = "overlayfs"`,
    "",
    `[${IMAGES}.pinned_images]`,
    `  sandbox = ${str(opts.sandboxImage ?? PAUSE_IMAGE)}`,
    "",
    `[${RUNTIME}]`,
    "  restrict_oom_score_adj = true",
    "  netns_mounts_under_state_dir = true",
    "",
    `[${RUNTIME}.containerd]`,
    `  default_runtime_name = "runc"`,
    "",
    `[${RUNTIME}.containerd.runtimes.runc]`,
    `  runtime_type = "io.containerd.runc.v2"`,
    "",
    `[${RUNTIME}.containerd.runtimes.runc.options]`,
    ...runcOptions(opts),
    "",
    ...extraHandlers(`${RUNTIME}.containerd.runtimes`, opts),
    `[${RUNTIME}.cni]`,
    `  bin_dirs = [${str(opts.cniBinDir ?? DEFAULT_CNI_BIN_DIR)}]`,
    `  conf_dir = ${str(opts.cniConfDir || paths.cniConfDir)}`,
    "  max_conf_num = 1",
    "",
    // 2.x deprecates `mirrors` (and pulls without its transfer service when they are set).
    `[${IMAGES}.registry]`,
    `  config_path = ${str(paths.registryHostsDir)}`,
  ];
  return lines;
}

/**
 * containerd 2.x's registry mirrors: one `<registryHostsDir>/<host:port>/hosts.toml` per
 * plain-http registry (the `config_path` the version 3 config names).
 */
export function renderRegistryHosts(registryMirrors: readonly string[] = DEFAULT_REGISTRY_MIRRORS): { host: string; text: string }[] {
  return registryMirrors.map((host) => ({
    host,
    text: [`server = ${str(`http://${host}`)}`, "", `[host.${str(`http://${host}`)}]`, `  capabilities = ["pull", "resolve"]`, ""].join("\n"),
  }));
}

/**
 * The config version a containerd binary reads, from its `containerd --version` line
 * (`containerd github.com/containerd/containerd 1.7.24~ds1 …`, `… containerd/v2 2.1.9+unknown`).
 */
export function configVersionFor(versionLine: string): { version: string; configVersion: ContainerdConfigVersion } {
  const version = versionLine.trim().split(/\s+/)[2] ?? "";
  const major = /^v?(\d+)\./.exec(version)?.[1];
  if (major === undefined) throw new Error(`cannot read a containerd version from ${JSON.stringify(versionLine.trim())}`);
  if (major === "1") return { version, configVersion: 2 };
  if (major === "2") return { version, configVersion: 3 };
  throw new Error(`containerd ${version} is not supported: bunlet renders configs for containerd 1.6, 1.7 and 2.x`);
}
