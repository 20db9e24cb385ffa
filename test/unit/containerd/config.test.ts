import { describe, expect, test } from "bun:test";
import { DEFAULT_BRIDGE_NAME, DEFAULT_POD_SUBNET, renderCniConflist } from "../../../src/containerd/cni.ts";
import { configVersionFor, renderContainerdConfig, renderRegistryHosts } from "../../../src/containerd/config.ts";
import { containerdPaths, PAUSE_IMAGE } from "../../../src/containerd/index.ts";

type TomlValue = string | number | boolean | string[];

/**
 * The rendered config through a real TOML parser (Bun's, TOML 1.0), as flat tables keyed by
 * their dotted header (`plugins."io.containerd.grpc.v1.cri".cni`) with their leaf values.
 */
function parseToml(text: string): Map<string, Record<string, TomlValue>> {
  const tables = new Map<string, Record<string, TomlValue>>();
  const walk = (obj: Record<string, unknown>, name: string) => {
    const leaves: Record<string, TomlValue> = {};
    for (const [k, v] of Object.entries(obj)) {
      const key = /^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k);
      if (v !== null && typeof v === "object" && !Array.isArray(v)) walk(v as Record<string, unknown>, name === "" ? key : `${name}.${key}`);
      else leaves[k] = v as TomlValue;
    }
    if (name === "" || Object.keys(leaves).length > 0) tables.set(name, leaves);
  };
  walk(Bun.TOML.parse(text) as Record<string, unknown>, "");
  return tables;
}

const CRI = `plugins."io.containerd.grpc.v1.cri"`;

function table(toml: Map<string, Record<string, TomlValue>>, name: string): Record<string, TomlValue> {
  const t = toml.get(name);
  if (!t) throw new Error(`expected table [${name}], found: ${[...toml.keys()].join(", ")}`);
  return t;
}

describe("renderContainerdConfig", () => {
  const rootDir = "/var/lib/bunlet";
  const toml = parseToml(renderContainerdConfig({ rootDir }));

  test("a version 2 config with root, state and socket under <rootDir>/containerd", () => {
    expect(table(toml, "")).toEqual({
      version: 2,
      root: "/var/lib/bunlet/containerd/root",
      state: "/var/lib/bunlet/containerd/state",
    });
    expect(table(toml, "grpc").address).toBe("/var/lib/bunlet/containerd/containerd.sock");
    expect(table(toml, `plugins."io.containerd.internal.v1.opt"`).path).toBe("/var/lib/bunlet/containerd/opt");
  });

  test("the CRI plugin is enabled, uses kubeadm 1.37's pause image and restricted oom_score_adj", () => {
    expect(toml.has("disabled_plugins")).toBe(false);
    expect(table(toml, "").disabled_plugins).toBeUndefined();
    const cri = table(toml, CRI);
    expect(cri.sandbox_image).toBe(PAUSE_IMAGE);
    // kubeadm 1.37's PauseVersion (cmd/kubeadm/app/constants): a name registry.k8s.io serves.
    expect(PAUSE_IMAGE).toBe("registry.k8s.io/pause:3.10.2");
    expect(cri.restrict_oom_score_adj).toBe(true);
    expect(cri.netns_mounts_under_state_dir).toBe(true);
  });

  test("runc v2 with cgroupfs on the overlayfs snapshotter", () => {
    expect(table(toml, `${CRI}.containerd`)).toEqual({ snapshotter: "overlayfs", default_runtime_name: "runc" });
    expect(table(toml, `${CRI}.containerd.runtimes.runc`).runtime_type).toBe("io.containerd.runc.v2");
    expect(table(toml, `${CRI}.containerd.runtimes.runc.options`).SystemdCgroup).toBe(false);
  });

  test("cgroupDriver systemd renders runc's SystemdCgroup = true, for every handler and both config versions", () => {
    for (const configVersion of [2, 3] as const) {
      const text = renderContainerdConfig({ rootDir: "/var/lib/bunlet", configVersion, systemdCgroup: true, extraRuncHandlers: ["kata"] });
      expect(text.match(/SystemdCgroup = (\w+)/g)).toEqual(["SystemdCgroup = true", "SystemdCgroup = true"]);
    }
  });

  test("runcBinary becomes every handler's BinaryName, in both config versions; none by default (runc on PATH)", () => {
    for (const configVersion of [2, 3] as const) {
      const text = renderContainerdConfig({ rootDir: "/var/lib/bunlet", configVersion, runcBinary: "/opt/runc-1.3/runc", extraRuncHandlers: ["kata"] });
      expect(text.match(/BinaryName = .*/g)).toEqual(['BinaryName = "/opt/runc-1.3/runc"', 'BinaryName = "/opt/runc-1.3/runc"']);
      expect(renderContainerdConfig({ rootDir: "/var/lib/bunlet", configVersion })).not.toContain("BinaryName");
    }
  });

  test("CNI binaries from Debian's package and config from the instance's own dir", () => {
    const cni = table(toml, `${CRI}.cni`);
    expect(cni.bin_dir).toBe("/usr/lib/cni");
    expect(cni.conf_dir).toBe("/var/lib/bunlet/containerd/cni/net.d");
  });

  test("a plain-http mirror for 127.0.0.1:5000 by default", () => {
    expect(table(toml, `${CRI}.registry.mirrors."127.0.0.1:5000"`).endpoint).toEqual(["http://127.0.0.1:5000"]);
  });

  test("one mirror entry per configured registry, none when the list is empty", () => {
    const two = parseToml(renderContainerdConfig({ rootDir, registryMirrors: ["127.0.0.1:5001", "127.0.0.1:41000"] }));
    expect(table(two, `${CRI}.registry.mirrors."127.0.0.1:5001"`).endpoint).toEqual(["http://127.0.0.1:5001"]);
    expect(table(two, `${CRI}.registry.mirrors."127.0.0.1:41000"`).endpoint).toEqual(["http://127.0.0.1:41000"]);
    expect(two.has(`${CRI}.registry.mirrors."127.0.0.1:5000"`)).toBe(false);
    const none = parseToml(renderContainerdConfig({ rootDir, registryMirrors: [] }));
    expect([...none.keys()].filter((k) => k.includes("mirrors"))).toEqual([]);
  });

  test("sandbox image and CNI bin dir can be overridden", () => {
    const custom = parseToml(renderContainerdConfig({ rootDir, sandboxImage: "registry.k8s.io/pause:3.9", cniBinDir: "/opt/cni/bin" }));
    expect(table(custom, CRI).sandbox_image).toBe("registry.k8s.io/pause:3.9");
    expect(table(custom, `${CRI}.cni`).bin_dir).toBe("/opt/cni/bin");
  });

  test("any root dir makes valid TOML: quotes, backslashes and control characters are escaped", () => {
    const odd = '/tmp/a"b\\c\u0001d\u007fe\nf\tg';
    const parsed = parseToml(renderContainerdConfig({ rootDir: odd }));
    expect(table(parsed, "").root).toBe(`${odd}/containerd/root`);
    expect(table(parsed, `${CRI}.cni`).conf_dir).toBe(`${odd}/containerd/cni/net.d`);
    const long = `${odd}/${"x".repeat(100)}`;
    const text = renderContainerdConfig({ rootDir: long });
    expect(table(parseToml(text), "").state).toBe(`${long}/containerd/state`);
    expect(text.split("\n")[1]).toStartWith("# socket path /tmp/a\"b\\c\\u0001d\\u007fe\\u000af\tg/");
  });

  test("a relative root dir is made absolute", () => {
    expect(containerdPaths("rel/dir").dir).toBe(`${process.cwd()}/rel/dir/containerd`);
  });
});

describe("renderContainerdConfig for containerd 2.x (config version 3)", () => {
  const rootDir = "/var/lib/bunlet";
  const toml = parseToml(renderContainerdConfig({ rootDir, configVersion: 3 }));
  const IMAGES = `plugins."io.containerd.cri.v1.images"`;
  const RUNTIME = `plugins."io.containerd.cri.v1.runtime"`;

  test("version 3 with the same root, state, socket and opt dir", () => {
    expect(table(toml, "")).toEqual({ version: 3, root: "/var/lib/bunlet/containerd/root", state: "/var/lib/bunlet/containerd/state" });
    expect(table(toml, "grpc").address).toBe("/var/lib/bunlet/containerd/containerd.sock");
    expect(table(toml, `plugins."io.containerd.internal.v1.opt"`).path).toBe("/var/lib/bunlet/containerd/opt");
  });

  test("the same CRI settings in the split images/runtime plugins, and no 1.x CRI table", () => {
    expect(table(toml, IMAGES).snapshotter).toBe("overlayfs");
    expect(table(toml, `${IMAGES}.pinned_images`).sandbox).toBe(PAUSE_IMAGE);
    expect(table(toml, RUNTIME)).toEqual({ restrict_oom_score_adj: true, netns_mounts_under_state_dir: true });
    expect(table(toml, `${RUNTIME}.containerd`).default_runtime_name).toBe("runc");
    expect(table(toml, `${RUNTIME}.containerd.runtimes.runc`).runtime_type).toBe("io.containerd.runc.v2");
    expect(table(toml, `${RUNTIME}.cni`)).toEqual({ bin_dirs: ["/usr/lib/cni"], conf_dir: "/var/lib/bunlet/containerd/cni/net.d", max_conf_num: 1 });
    expect([...toml.keys()].filter((k) => k.includes("io.containerd.grpc.v1.cri"))).toEqual([]);
  });

  test("registry mirrors are hosts.toml files under config_path (2.x deprecates `mirrors`)", () => {
    expect(table(toml, `${IMAGES}.registry`)).toEqual({ config_path: "/var/lib/bunlet/containerd/certs.d" });
    expect([...toml.keys()].filter((k) => k.includes("mirrors"))).toEqual([]);
    expect(renderRegistryHosts()).toEqual([{ host: "127.0.0.1:5000", text: expect.any(String) }]);
    const [hosts] = renderRegistryHosts(["127.0.0.1:41000"]);
    expect(hosts!.host).toBe("127.0.0.1:41000");
    const parsed = parseToml(hosts!.text);
    expect(table(parsed, "").server).toBe("http://127.0.0.1:41000");
    expect(table(parsed, `host."http://127.0.0.1:41000"`).capabilities).toEqual(["pull", "resolve"]);
  });

  test("NRI is off: containerd 2 would otherwise listen on the host-wide /var/run/nri/nri.sock", () => {
    expect(table(toml, `plugins."io.containerd.nri.v1.nri"`).disable).toBe(true);
  });
});

describe("configVersionFor reads `containerd --version`", () => {
  test.each([
    ["containerd github.com/containerd/containerd 1.6.20~ds1 1.6.20~ds1-1+deb12u3", "1.6.20~ds1", 2],
    ["containerd github.com/containerd/containerd 1.7.24~ds1 1.7.24~ds1-6+deb13u1\n", "1.7.24~ds1", 2],
    ["containerd github.com/containerd/containerd/v2 2.1.9+unknown ", "2.1.9+unknown", 3],
    ["containerd containerd.io v2.0.0 207ad711eabd375a01713109a8a197d197ff6542", "v2.0.0", 3],
  ])("%s", (line, version, configVersion) => {
    expect(configVersionFor(line)).toEqual({ version, configVersion: configVersion as 2 | 3 });
  });

  test("an unknown major version or an unreadable line is an error naming what was found", () => {
    expect(() => configVersionFor("containerd github.com/containerd/containerd 3.0.0 x")).toThrow("containerd 3.0.0 is not supported");
    expect(() => configVersionFor("hello")).toThrow('cannot read a containerd version from "hello"');
  });
});

describe("socket path length", () => {
  test("a short root dir keeps the socket beside the config", () => {
    const paths = containerdPaths("/var/lib/bunlet");
    expect(paths.socketPath).toBe("/var/lib/bunlet/containerd/containerd.sock");
    expect(paths.socketFallbackReason).toBeUndefined();
  });

  test("a socket path too long for sun_path moves to /run/bunlet-<hash>/ and the config says why", () => {
    const rootDir = `/var/lib/${"x".repeat(90)}`;
    const paths = containerdPaths(rootDir);
    expect(paths.socketPath).toMatch(/^\/run\/bunlet-[0-9a-f]{12}\/containerd\.sock$/);
    expect(Buffer.byteLength(`${paths.socketPath}.ttrpc`)).toBeLessThan(108);
    expect(paths.socketFallbackReason).toContain("too long for a unix socket");
    const text = renderContainerdConfig({ rootDir });
    expect(parseToml(text).get("grpc")!.address).toBe(paths.socketPath);
    expect(text).toContain(`# ${paths.socketFallbackReason}`);
    // the rest stays under the root dir
    expect(parseToml(text).get("")!.root).toBe(`${rootDir}/containerd/root`);
  });

  test("the fallback is stable per root dir and distinct between root dirs", () => {
    const a = `/srv/${"a".repeat(100)}`;
    const b = `/srv/${"b".repeat(100)}`;
    expect(containerdPaths(a).socketPath).toBe(containerdPaths(a).socketPath);
    expect(containerdPaths(a).socketPath).not.toBe(containerdPaths(b).socketPath);
  });

  test("the limit counts the .ttrpc socket containerd also creates", () => {
    // sun_path holds 107 bytes + NUL; "<sock>.ttrpc" must fit, so the socket may be 101 bytes.
    const longest = "/" + "f".repeat(101 - "/containerd/containerd.sock".length - 1);
    expect(Buffer.byteLength(containerdPaths(longest).socketPath)).toBe(101);
    expect(containerdPaths(longest).socketFallbackReason).toBeUndefined();
    const tooLong = longest + "g";
    expect(containerdPaths(tooLong).socketFallbackReason).toBeDefined();
  });
});

describe("renderCniConflist", () => {
  test("bridge with gateway, masquerade and hairpin, host-local IPAM and portmap", () => {
    const conflist = JSON.parse(renderCniConflist({ rootDir: "/var/lib/bunlet" }));
    expect(conflist.name).toBe("bunlet");
    expect(conflist.cniVersion).toBe("1.0.0");
    const [bridge, portmap] = conflist.plugins;
    expect(bridge).toMatchObject({
      type: "bridge",
      bridge: DEFAULT_BRIDGE_NAME,
      isGateway: true,
      ipMasq: true,
      hairpinMode: true,
      ipam: { type: "host-local", ranges: [[{ subnet: DEFAULT_POD_SUBNET }]], dataDir: "/var/lib/bunlet/containerd/cni/ipam" },
    });
    expect(DEFAULT_BRIDGE_NAME).toBe("bunlet0");
    expect(DEFAULT_POD_SUBNET).toBe("10.88.0.0/16");
    expect(portmap).toEqual({ type: "portmap", capabilities: { portMappings: true } });
  });

  test("two instances on one host get distinct bridges, subnets, IPAM dirs, sockets and CNI dirs", () => {
    const a = { rootDir: "/tmp/bunlet-a", bridgeName: "bla", podSubnet: "10.89.1.0/24" };
    const b = { rootDir: "/tmp/bunlet-b", bridgeName: "blb", podSubnet: "10.89.2.0/24" };
    const [ca, cb] = [a, b].map((o) => JSON.parse(renderCniConflist(o)).plugins[0]);
    expect(ca.bridge).not.toBe(cb.bridge);
    expect(ca.ipam.ranges).not.toEqual(cb.ipam.ranges);
    expect(ca.ipam.dataDir).not.toBe(cb.ipam.dataDir);
    const [ta, tb] = [a, b].map((o) => parseToml(renderContainerdConfig(o)));
    expect(ta!.get("grpc")!.address).not.toBe(tb!.get("grpc")!.address);
    expect(ta!.get(`${CRI}.cni`)!.conf_dir).not.toBe(tb!.get(`${CRI}.cni`)!.conf_dir);
    expect(ta!.get("")!.state).not.toBe(tb!.get("")!.state);
  });

  test("IPv6 and dual-stack pod networks: one host-local range and one default route per family", () => {
    const ipam = (podSubnet: string) => JSON.parse(renderCniConflist({ rootDir: "/r", podSubnet })).plugins[0].ipam;
    expect(ipam("fd00:10:88::/64")).toMatchObject({ ranges: [[{ subnet: "fd00:10:88::/64" }]], routes: [{ dst: "::/0" }] });
    expect(ipam("10.88.0.0/16,fd00:10:88::/64")).toMatchObject({
      ranges: [[{ subnet: "10.88.0.0/16" }], [{ subnet: "fd00:10:88::/64" }]],
      routes: [{ dst: "0.0.0.0/0" }, { dst: "::/0" }],
    });
  });

  test.each([
    ["a name longer than IFNAMSIZ", { bridgeName: "bunlet-bridge-too-long" }, /bridge name/],
    ["a name with a space", { bridgeName: "br 0" }, /bridge name/],
    ["a subnet that is not a CIDR", { podSubnet: "10.88.0.0" }, /pod subnet/],
    ["two subnets of one family", { podSubnet: "10.88.0.0/16,10.89.0.0/16" }, /pod subnet/],
  ])("rejects %s", (_name, opts, message) => {
    expect(() => renderCniConflist({ rootDir: "/r", ...opts })).toThrow(message);
  });
});
