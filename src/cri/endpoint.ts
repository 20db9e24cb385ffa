/** Accepts `unix:///path/to.sock` or a bare absolute path; returns the socket path. */
export function parseEndpoint(endpoint: string): string {
  const trimmed = endpoint.trim();
  if (trimmed.startsWith("unix://")) {
    const path = trimmed.slice("unix://".length);
    if (!path.startsWith("/")) throw new Error(`container runtime endpoint ${JSON.stringify(endpoint)}: unix socket path must be absolute`);
    return path;
  }
  if (trimmed.startsWith("/")) return trimmed;
  throw new Error(
    `container runtime endpoint ${JSON.stringify(endpoint)}: expected unix:///path/to/socket or an absolute socket path`,
  );
}
