// Hosts for the network e2e: each a network namespace with its own address on one bridge of
// this machine (one L2 segment, as host-gw needs), a default route to the machine through the
// bridge (the control plane listens on the machine's address), and teardown that leaves nothing.
import { allocateTestNetwork, type TestNetwork } from "../../harness/network.ts";
import { deleteLink, killShims } from "../../harness/cleanup.ts";

export interface TestHost {
  /** Names the node too. */
  name: string;
  /** The network namespace (`ip netns exec <ns>`). */
  ns: string;
  /** Its address on the bridge: the Node's InternalIP. */
  ip: string;
  /**
   * The prefix that runs a long-lived process (bunlet, kube-proxy) in the namespace: nsenter, which
   * enters the network namespace only, so its mounts (containerd's) are the machine's, as on a
   * real host, and a restarted bunlet sees what the last one mounted (`ip netns exec` would give
   * each run a mount namespace of its own).
   */
  enter: string[];
  /** Runs a command in the namespace; stdout on success, an error with stderr otherwise. */
  run(argv: string[]): string;
}

export interface TestLan {
  /** The machine's address on the bridge: the hosts' default gateway. */
  gateway: string;
  hosts: TestHost[];
  /** Kills what runs in each namespace (the shims of each containerd socket given first, with their containers), deletes the namespaces, the veths and the bridge. */
  destroy(containerdSockets: string[]): void;
}

function sh(argv: string[]): string {
  const r = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${r.exitCode}: ${r.stderr.toString().trim()}`);
  return r.stdout.toString();
}

function quiet(argv: string[]): void {
  Bun.spawnSync(argv, { stdout: "ignore", stderr: "ignore" });
}

/** A bridge on a free 10.89.N.0/24 (the harness's lock) and one namespace per name at .2, .3, ... */
export function createTestLan(names: string[]): TestLan {
  const net: TestNetwork = allocateTestNetwork();
  const prefix = net.podSubnet.split(".").slice(0, 3).join(".");
  const gateway = `${prefix}.1`;
  const hosts: TestHost[] = names.map((name, i) => {
    const ns = `${net.bridgeName}-${i}`;
    return { name, ns, ip: `${prefix}.${i + 2}`, enter: ["nsenter", `--net=/run/netns/${ns}`], run: (argv) => sh(["ip", "netns", "exec", ns, ...argv]) };
  });
  const destroy = (sockets: string[]) => {
    for (const socket of sockets) killShims(socket);
    for (const host of hosts) {
      const pids = Bun.spawnSync(["ip", "netns", "pids", host.ns], { stdout: "pipe", stderr: "ignore" }).stdout.toString().trim().split(/\s+/).filter(Boolean);
      for (const pid of pids) quiet(["kill", "-9", pid]);
      quiet(["ip", "netns", "del", host.ns]);
      deleteLink(`${net.bridgeName}h${hosts.indexOf(host)}`);
    }
    deleteLink(net.bridgeName);
    net.release();
  };
  try {
    sh(["ip", "link", "add", net.bridgeName, "type", "bridge"]);
    sh(["ip", "addr", "add", `${gateway}/24`, "dev", net.bridgeName]);
    sh(["ip", "link", "set", net.bridgeName, "up"]);
    for (const [i, host] of hosts.entries()) {
      const veth = `${net.bridgeName}h${i}`;
      sh(["ip", "netns", "add", host.ns]);
      sh(["ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", host.ns]);
      sh(["ip", "link", "set", veth, "master", net.bridgeName, "up"]);
      host.run(["ip", "link", "set", "lo", "up"]);
      host.run(["ip", "addr", "add", `${host.ip}/24`, "dev", "eth0"]);
      host.run(["ip", "link", "set", "eth0", "up"]);
      host.run(["ip", "route", "add", "default", "via", gateway]);
      host.run(["sysctl", "-qw", "net.ipv4.ip_forward=1"]);
    }
  } catch (err) {
    destroy([]);
    throw err;
  }
  return { gateway, hosts, destroy };
}
