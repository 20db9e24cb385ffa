// The userns file (TestUserNsManagerParseUserNsFile) and the node's IDs (parseGetSubIdsOutput,
// getKubeletMappings) as the kubelet reads them.
import { describe, expect, test } from "bun:test";
import { getKubeletMappings, parseGetSubIdsOutput, passwdHasUser, type KubeletMappingsDeps } from "../../../src/userns/kubelet-mappings.ts";
import { encodeMappings, parseMappings } from "../../../src/userns/mappings-file.ts";

const m = (hostId: number, containerId = 0, length = 65536) => ({ hostId, containerId, length });

describe("the userns file", () => {
  test("what bunlet writes is the kubelet's JSON, field for field", () => {
    expect(encodeMappings({ hostId: 131072, length: 65536 })).toBe(
      '{"uidMappings":[{"hostId":131072,"containerId":0,"length":65536}],"gidMappings":[{"hostId":131072,"containerId":0,"length":65536}]}',
    );
    expect(parseMappings(encodeMappings({ hostId: 131072, length: 65536 }))).toEqual({ hostId: 131072, length: 65536 });
  });

  const cases: { name: string; file: unknown; err?: string }[] = [
    { name: "basic", file: { uidMappings: [m(131072)], gidMappings: [m(131072)] } },
    { name: "two GID mappings", file: { uidMappings: [m(131072)], gidMappings: [m(131072), m(196608)] }, err: "GID and UID mappings should be identical." },
    { name: "two UID mappings", file: { uidMappings: [m(131072), m(196608)], gidMappings: [m(131072)] }, err: "no more than one mapping allowed." },
    { name: "no mappings", file: {}, err: "no more than one mapping allowed." },
    { name: "wrong offset (GID differs)", file: { uidMappings: [m(131072)], gidMappings: [m(1)] }, err: "GID and UID mapping should be identical" },
    { name: "no root UID", file: { uidMappings: [m(131072, 1)], gidMappings: [m(131072)] }, err: "GID and UID mapping should be identical" },
    { name: "no root UID nor GID", file: { uidMappings: [m(131072, 1)], gidMappings: [m(131072, 1)] }, err: "UID 0 must be mapped" },
    { name: "a negative ID", file: { uidMappings: [m(-1)], gidMappings: [m(-1)] }, err: "hostId must be a 32-bit unsigned integer" },
    { name: "not JSON", file: "{", err: "invalid user namespace mappings file" },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const text = typeof c.file === "string" ? c.file : JSON.stringify(c.file);
      if (c.err) expect(() => parseMappings(text)).toThrow(c.err);
      else expect(parseMappings(text)).toEqual({ hostId: 131072, length: 65536 });
    });
  }
});

describe("parseGetSubIdsOutput", () => {
  const cases: { name: string; input: string; want?: [number, number] }[] = [
    { name: "valid", input: "0: kubelet 65536 2147483648", want: [65536, 2147483648] },
    { name: "valid with a trailing newline", input: "0: kubelet 65536 2147483648\n", want: [65536, 2147483648] },
    { name: "multiple lines", input: "0: kubelet 1 2\n1: kubelet 3 4\n" },
    { name: "wrong format", input: "0: kubelet 65536" },
    { name: "non numeric 1", input: "0: kubelet Foo 65536" },
    { name: "non numeric 2", input: "0: kubelet 0 Bar" },
    { name: "overflow 1", input: "0: kubelet 4294967296 2147483648" },
    { name: "overflow 2", input: "0: kubelet 65536 4294967296" },
    { name: "negative value 1", input: "0: kubelet -1 2147483648" },
    { name: "negative value 2", input: "0: kubelet 65536 -1" },
  ];
  for (const c of cases) {
    test(c.name, () => {
      if (c.want) expect(parseGetSubIdsOutput(c.input)).toEqual({ firstId: c.want[0], length: c.want[1] });
      else expect(() => parseGetSubIdsOutput(c.input)).toThrow();
    });
  }
});

describe("getKubeletMappings", () => {
  const host = (o: { user?: boolean; tool?: boolean; uids?: string; gids?: string; fail?: "uids" | "gids" }): KubeletMappingsDeps & { calls: string[][] } => {
    const calls: string[][] = [];
    return {
      calls,
      userExists: (name) => name === "kubelet" && o.user === true,
      findGetsubids: () => (o.tool ? "/usr/bin/getsubids" : undefined),
      async run(argv) {
        calls.push([...argv]);
        const gid = argv.includes("-g");
        if (o.fail === (gid ? "gids" : "uids")) throw new Error("exit status 1");
        return (gid ? o.gids : o.uids) ?? "";
      },
    };
  };
  const line = "0: kubelet 524288 7208960\n";

  test("no kubelet user: the default range, getsubids not asked", async () => {
    const h = host({ tool: true, uids: line, gids: line });
    expect(await getKubeletMappings(65536, h)).toEqual({ firstId: 65536, length: 2 ** 32 - 65536, source: "default" });
    expect(h.calls).toEqual([]);
  });
  test("a kubelet user but no getsubids: the default range", async () => {
    expect(await getKubeletMappings(131072, host({ user: true }))).toEqual({ firstId: 131072, length: 2 ** 32 - 131072, source: "default" });
  });
  test("a kubelet user and getsubids: its one range, asked for UIDs and GIDs", async () => {
    const h = host({ user: true, tool: true, uids: line, gids: line });
    expect(await getKubeletMappings(65536, h)).toEqual({ firstId: 524288, length: 7208960, source: "getsubids" });
    expect(h.calls).toEqual([["/usr/bin/getsubids", "kubelet"], ["/usr/bin/getsubids", "-g", "kubelet"]]);
  });
  test("different subuid and subgid ranges are refused", async () => {
    await expect(getKubeletMappings(65536, host({ user: true, tool: true, uids: line, gids: "0: kubelet 65536 65536\n" }))).rejects.toThrow(
      'mismatched subuids and subgids for user "kubelet"',
    );
  });
  test("getsubids failing is an error, not the default (its source may be down)", async () => {
    await expect(getKubeletMappings(65536, host({ user: true, tool: true, fail: "uids" }))).rejects.toThrow('error retrieving additional uids for user "kubelet"');
    await expect(getKubeletMappings(65536, host({ user: true, tool: true, uids: line, fail: "gids" }))).rejects.toThrow('error retrieving additional gids for user "kubelet"');
  });
  test("the passwd lookup matches the whole user name", () => {
    const passwd = "root:x:0:0:root:/root:/bin/bash\nkubelets:x:999:999::/:/bin/false\n";
    expect(passwdHasUser(passwd, "kubelet")).toBe(false);
    expect(passwdHasUser(`${passwd}kubelet:x:998:998::/:/usr/sbin/nologin\n`, "kubelet")).toBe(true);
  });
});
