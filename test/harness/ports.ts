// Ports for the processes the tests start (bunlet, registries, metrics-server) whose flags need a
// number rather than 0.
import { createServer } from "node:net";

/**
 * The ports freePort hands out: below the kernel's ephemeral range (32768-60999 here), where an
 * outgoing connection could take a port between the check and bunlet's listen (EADDRINUSE, seen
 * in CI), and below scripts/cluster.sh's control planes (20000-29799); above the kubelet's own.
 */
const TEST_PORTS = { first: 12_000, count: 8_000 };
const handedOut = new Set<number>();

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    // Every address: a listener on one of them holds the port for bunlet's 0.0.0.0 too.
    server.listen(port, "0.0.0.0", () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port nothing listens on right now (bunlet's flags need a number, not 0), never handed out
 * before by this process; chosen at random so that concurrent test processes rarely try the same.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = TEST_PORTS.first + Math.floor(Math.random() * TEST_PORTS.count);
    if (handedOut.has(port) || !(await listenable(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port in ${TEST_PORTS.first}-${TEST_PORTS.first + TEST_PORTS.count - 1} after 200 tries`);
}
