/**
 * bunlet's version, from package.json. The bundler inlines the JSON, so the compiled binary
 * carries it and needs no file at run time.
 */
import pkg from "../../package.json";

export const VERSION: string = pkg.version;

/** The line `bunlet --version` prints. */
export function versionText(): string {
  return `bunlet v${VERSION}`;
}

/** The Kubernetes release whose kubelet bunlet follows: the Node's nodeInfo.kubeletVersion. */
export const KUBELET_COMPAT_VERSION = "v1.37.2";

/**
 * The User-Agent of the node's API client, shaped as client-go's DefaultKubernetesUserAgent
 * (program/version (os/arch) ...), so the apiserver's audit log names bunlet, its version and the
 * kubelet release it follows. `goArch` is Go's spelling of the CPU (amd64, arm64).
 */
export function nodeUserAgent(goArch: string): string {
  return `bunlet/v${VERSION} (linux/${goArch}) kubelet-compatible/${KUBELET_COMPAT_VERSION}`;
}
