import { containerdPaths } from "./paths.ts";

/** The sandbox (pause) image that scripts/build-images.sh builds locally. */
export const PAUSE_IMAGE = "docker.io/bunlet/pause:3.9";
/** The busybox image that scripts/build-images.sh builds locally. */
export const BUSYBOX_IMAGE = "docker.io/library/busybox:1.36";
const DEFAULT_CNI_BIN_DIR = "/usr/lib/cni";
const DEFAULT_REGISTRY_MIRRORS: readonly string[] = ["127.0.0.1:5000"];

export interface ContainerdConfigOptions {
  rootDir: string;
  /** Default PAUSE_IMAGE. */
  sandboxImage?: string;
  /** Default /usr/lib/cni (Debian's containernetworking-plugins). */
  cniBinDir?: string;
  /** `host:port` of plain-http registries, each mirrored to `http://host:port`. Default 127.0.0.1:5000. */
  registryMirrors?: readonly string[];
}

const CRI = `plugins."io.containerd.grpc.v1.cri"`;

/** TOML 1.0 allows no control character but tab in strings and comments. */
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
 * Renders a version 2 config for containerd 1.6 whose every path lives under
 * `<rootDir>/containerd`, so several instances (and a system containerd) can share a host.
 */
export function renderContainerdConfig(opts: ContainerdConfigOptions): string {
  const paths = containerdPaths(opts.rootDir);
  const mirrors = opts.registryMirrors ?? DEFAULT_REGISTRY_MIRRORS;
  const lines = [
    "# Rendered by bunlet; edits are overwritten at start-up.",
    ...(paths.socketFallbackReason ? [comment(paths.socketFallbackReason)] : []),
    "version = 2",
    `root = ${str(paths.root)}`,
    `state = ${str(paths.state)}`,
    "",
    "[grpc]",
    `  address = ${str(paths.socketPath)}`,
    "",
    `[plugins."io.containerd.internal.v1.opt"]`,
    `  path = ${str(paths.optDir)}`,
    "",
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
    "  SystemdCgroup = false",
    "",
    `[${CRI}.cni]`,
    `  bin_dir = ${str(opts.cniBinDir ?? DEFAULT_CNI_BIN_DIR)}`,
    `  conf_dir = ${str(paths.cniConfDir)}`,
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
  return lines.join("\n") + "\n";
}
