import { createHash } from "node:crypto";
import { join, resolve } from "node:path";

/** sun_path is 108 bytes including the trailing NUL. */
const UNIX_PATH_MAX = 107;
/** containerd also listens on `<grpc address>.ttrpc`, so that one must fit as well. */
const TTRPC_SUFFIX = ".ttrpc";

/** Every path the managed containerd uses, all derived from bunlet's root dir. */
export interface ContainerdPaths {
  /** `<rootDir>/containerd` */
  dir: string;
  configFile: string;
  /** `config.toml.tmpl`: the user's template (k3s's), `{{ template "base" . }}` being bunlet's config. */
  configTemplateFile: string;
  /** `config.toml.base`: bunlet's config as the template's base, written while a template is used. */
  configBaseFile: string;
  root: string;
  state: string;
  socketPath: string;
  /** Set when `<dir>/containerd.sock` was too long for a unix socket and a /run path is used. */
  socketFallbackReason?: string;
  logFile: string;
  pidFile: string;
  optDir: string;
  cniConfDir: string;
  cniConflistFile: string;
  cniIpamDir: string;
  /** containerd 2.x's registry hosts dir: `<host:port>/hosts.toml` per mirror. */
  registryHostsDir: string;
}

export function containerdPaths(rootDir: string): ContainerdPaths {
  const dir = join(resolve(rootDir), "containerd");
  const preferred = join(dir, "containerd.sock");
  let socketPath = preferred;
  let socketFallbackReason: string | undefined;
  if (Buffer.byteLength(preferred + TTRPC_SUFFIX) > UNIX_PATH_MAX) {
    const hash = createHash("sha256").update(dir).digest("hex").slice(0, 12);
    socketPath = `/run/bunlet-${hash}/containerd.sock`;
    socketFallbackReason =
      `socket path ${preferred} is ${Buffer.byteLength(preferred)} bytes, too long for a unix socket ` +
      `(with ${TTRPC_SUFFIX} it must stay under ${UNIX_PATH_MAX + 1}); using ${socketPath} instead`;
  }
  const cniConfDir = join(dir, "cni", "net.d");
  return {
    dir,
    configFile: join(dir, "config.toml"),
    configTemplateFile: join(dir, "config.toml.tmpl"),
    configBaseFile: join(dir, "config.toml.base"),
    root: join(dir, "root"),
    state: join(dir, "state"),
    socketPath,
    socketFallbackReason,
    logFile: join(dir, "containerd.log"),
    pidFile: join(dir, "containerd.pid"),
    optDir: join(dir, "opt"),
    cniConfDir,
    cniConflistFile: join(cniConfDir, "10-bunlet.conflist"),
    cniIpamDir: join(dir, "cni", "ipam"),
    registryHostsDir: join(dir, "certs.d"),
  };
}
