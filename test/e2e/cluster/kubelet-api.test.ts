/**
 * The kubelet API (:10250) on a bunlet node of a real cluster, used as users use it: real
 * kubectl through the real apiserver for `logs` (-f, --previous, --tail), `exec` (stdout, stdin,
 * exit code, a TTY), `attach`, `port-forward` to busybox httpd, and `get --raw .../proxy/stats/summary`;
 * and straight at the port: plain HTTP, no client certificate, a certificate of another CA, a
 * token the apiserver rejects, and a user without the RBAC right are refused on every endpoint,
 * and nothing they asked for runs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clusterNodeFixture } from "./fixture.ts";
import { boundTo, makePod } from "../../fixtures/pods.ts";
import { freePort } from "../agent/bunlet.ts";

const NODE = "bunlet-kapi";
let port = 0;
let pki = "";
const fx = clusterNodeFixture({
  name: "kapi",
  node: NODE,
  waitTimeoutMs: 120_000,
  beforeStart: async (fx) => {
    pki = join(fx.cluster.dir, "pki");
    port = await freePort();
  },
  flags: (fx) => [`--port=${port}`, `--client-ca-file=${fx.cluster.clientCaFile}`],
});
const waitFor = fx.waitFor;

async function sh(cmd: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const p = Bun.spawn(cmd, { stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

/** What every pod of this file has: its namespace, its node, busybox from the node's images. */
const onNode = { namespace: fx.namespace, spec: boundTo(NODE) };

async function kubectl(args: string[], stdin?: string) {
  return fx.cluster.kubectl(args, { stdin });
}

async function getPod(name: string): Promise<any> {
  const r = await kubectl(["get", "pod", name, "-o", "json"]);
  if (r.code !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}
const running = (p: any) => p.status?.containerStatuses?.[0]?.state?.running !== undefined;

beforeAll(async () => {
  const manifests = [
    makePod({ ...onNode, name: "logger", container: { imagePullPolicy: "Never", command: ["sh", "-c", "echo first; echo to-stderr >&2; i=0; while true; do echo tick $i; i=$((i+1)); sleep 1; done"] } }),
    makePod({ ...onNode, name: "crasher", container: { imagePullPolicy: "Never", command: ["sh", "-c", "echo run-$(date +%s%N); sleep 2; exit 3"] } }),
    makePod({ ...onNode, name: "web", container: { imagePullPolicy: "Never", command: ["sh", "-c", "mkdir -p /www && echo hello-from-pod > /www/index.html && exec httpd -f -p 8080 -h /www"] } }),
    makePod({ ...onNode, name: "echoer", container: { imagePullPolicy: "Never", command: ["sh", "-c", "while read l; do echo got:$l; done; echo stdin-closed"], stdin: true, stdinOnce: true } }),
  ];
  const r = await kubectl(["apply", "-f", "-"], manifests.map((m) => JSON.stringify(m)).join("\n"));
  if (r.code !== 0) throw new Error(`kubectl apply: ${r.stderr}`);
  for (const name of ["logger", "web", "echoer"]) await waitFor(`${name} running`, async () => running(await getPod(name)));
}, 300_000);

describe("kubectl through the apiserver", () => {
  test("the Node reports the port served", async () => {
    const r = await kubectl(["get", "node", NODE, "-o", "jsonpath={.status.daemonEndpoints.kubeletEndpoint.Port}"]);
    expect(r.stdout).toBe(String(port));
  });

  test("kubectl logs shows stdout and stderr; --tail keeps the last lines", async () => {
    await waitFor("a few ticks", async () => (await kubectl(["logs", "logger"])).stdout.includes("tick 2"));
    const all = await kubectl(["logs", "logger"]);
    expect(all.code).toBe(0);
    // stdout and stderr reach the log through two pipes: their relative order is the runtime's.
    expect(all.stdout.split("\n").slice(0, 3).sort()).toEqual(["first", "tick 0", "to-stderr"]);
    const tail = await kubectl(["logs", "logger", "--tail=1"]);
    expect(tail.stdout).toMatch(/^tick \d+\n$/);
    // The same log with each line's time in front: its first line is the log's own first line
    // ("first" or "to-stderr", whichever pipe containerd copied first).
    const stamped = await kubectl(["logs", "logger", "--timestamps", "--limit-bytes=200"]);
    const firstLine = all.stdout.split("\n")[0]!;
    expect(["first", "to-stderr"]).toContain(firstLine);
    expect(stamped.stdout.split("\n")[0]).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z ${firstLine}$`));
  });

  test("kubectl logs -f streams new lines as they are written", async () => {
    const kubectlBin = join(fx.cluster.env.K8S_BIN!, "kubectl");
    const p = Bun.spawn([kubectlBin, `--kubeconfig=${fx.cluster.adminKubeconfig}`, "logs", "-f", "logger", "--tail=1"], { stdout: "pipe", stderr: "pipe" });
    let seen = "";
    const errors = new Response(p.stderr).text();
    const lines = () => seen.split("\n").filter((l) => l !== "");
    const reader = (async () => {
      for await (const chunk of p.stdout) {
        seen += new TextDecoder().decode(chunk);
        if (lines().length >= 4) break;
      }
    })();
    // The same follow straight at the port, to tell the node's side from the apiserver's on a failure.
    const direct = Bun.spawn(["curl", "-skN", "--cert", join(pki, "admin.crt"), "--key", join(pki, "admin.key"),
      `https://127.0.0.1:${port}/containerLogs/${fx.namespace}/logger/main?follow=true&tailLines=1`], { stdout: "pipe", stderr: "ignore" });
    let directSeen = "";
    void (async () => {
      for await (const chunk of direct.stdout) directSeen += new TextDecoder().decode(chunk);
    })();
    try {
      // The last line when kubectl connected, then three written after it: they can only come by following.
      await waitFor("three new lines followed", async () => {
        if (p.exitCode !== null) throw new Error(`kubectl logs -f exited ${p.exitCode}: ${await errors}; it printed ${JSON.stringify(seen)}`);
        if (lines().length >= 4) return true;
        throw new Error(`kubectl printed ${JSON.stringify(seen.slice(-120))}; a direct follow printed ${JSON.stringify(directSeen.slice(-120))}`);
      });
    } finally {
      direct.kill();
      p.kill();
    }
    await reader.catch(() => {});
    const ticks = lines().slice(0, 4).map((l) => Number(l.split(" ")[1]));
    expect(ticks).toEqual(ticks.map((_, i) => ticks[0] + i));
  });

  test("kubectl logs --previous shows the last terminated container", async () => {
    await waitFor("crasher restarted", async () => ((await getPod("crasher")).status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1);
    const prev = await kubectl(["logs", "crasher", "--previous"]);
    expect(prev.code).toBe(0);
    expect(prev.stdout).toMatch(/^run-\S+\n$/);
  });

  test("kubectl exec runs a command: stdout, stdin and the exit code", async () => {
    const hi = await kubectl(["exec", "logger", "--", "sh", "-c", "echo hi"]);
    expect({ code: hi.code, stdout: hi.stdout }).toEqual({ code: 0, stdout: "hi\n" });
    const err = await kubectl(["exec", "logger", "--", "sh", "-c", "echo oops >&2"]);
    expect(err.stderr).toContain("oops");
    const exit = await kubectl(["exec", "logger", "--", "sh", "-c", "exit 7"]);
    expect(exit.code).toBe(7);
    const cat = await kubectl(["exec", "-i", "logger", "--", "cat"], "piped through\n");
    expect(cat.stdout).toBe("piped through\n");
  });

  test("kubectl exec -it gets a TTY", async () => {
    // script(1) gives kubectl a terminal, so it asks for a TTY as a user at a shell would.
    const kubectlBin = join(fx.cluster.env.K8S_BIN!, "kubectl");
    const r = await sh(["script", "-qec", `${kubectlBin} --kubeconfig=${fx.cluster.adminKubeconfig} exec -it logger -- sh -c 'tty; stty size'`, "/dev/null"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\/dev\/pts\/\d+/);
  });

  test("kubectl attach -i talks to the container's own stdin and stdout", async () => {
    const r = await kubectl(["attach", "-i", "echoer"], "hello\n");
    expect(r.stdout).toContain("got:hello");
  });

  test("kubectl port-forward reaches an HTTP server in the pod", async () => {
    const local = await freePort();
    const kubectlBin = join(fx.cluster.env.K8S_BIN!, "kubectl");
    const p = Bun.spawn([kubectlBin, `--kubeconfig=${fx.cluster.adminKubeconfig}`, "port-forward", "pod/web", `${local}:8080`], { stdout: "pipe", stderr: "pipe" });
    try {
      const body = await waitFor("the page through the forward", async () => {
        const res = await fetch(`http://127.0.0.1:${local}/`);
        return res.ok ? await res.text() : undefined;
      });
      expect(body).toBe("hello-from-pod\n");
    } finally {
      p.kill();
      await p.exited;
    }
  });

  test("a WebSocket exec (v5.channel.k8s.io) straight at the port is proxied to the runtime's streaming server", async () => {
    const cmd = ["sh", "-c", "echo ws-out; echo ws-err >&2; exit 3"].map((c) => `command=${encodeURIComponent(c)}`).join("&");
    const ws = new WebSocket(`wss://127.0.0.1:${port}/exec/${fx.namespace}/logger/main?${cmd}&output=1&error=1`, {
      protocols: ["v5.channel.k8s.io", "v4.channel.k8s.io"],
      tls: { cert: readFileSync(join(pki, "admin.crt"), "utf8"), key: readFileSync(join(pki, "admin.key"), "utf8"), rejectUnauthorized: false },
    } as unknown as string[]);
    ws.binaryType = "arraybuffer";
    const channels: Record<number, string> = {};
    await new Promise<void>((resolve, reject) => {
      ws.onmessage = (ev) => {
        const data = new Uint8Array(ev.data as ArrayBuffer);
        channels[data[0]] = (channels[data[0]] ?? "") + new TextDecoder().decode(data.subarray(1));
      };
      ws.onclose = () => resolve();
      ws.onerror = (e) => reject(new Error(`websocket error: ${String((e as ErrorEvent).message ?? e)}`));
    });
    expect(ws.protocol).toMatch(/^v[45]\.channel\.k8s\.io$/);
    expect(channels[1]).toBe("ws-out\n");
    expect(channels[2]).toBe("ws-err\n");
    expect(JSON.parse(channels[3])).toMatchObject({ status: "Failure", reason: "NonZeroExitCode", details: { causes: [{ reason: "ExitCode", message: "3" }] } });
  });

  test("kubectl get --raw .../proxy/stats/summary", async () => {
    const r = await kubectl(["get", "--raw", `/api/v1/nodes/${NODE}/proxy/stats/summary`]);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.node.nodeName).toBe(NODE);
    expect(summary.pods.map((p: any) => p.podRef.name)).toContain("logger");
  });

  test("containerLogs through the node proxy, with the kubelet's query", async () => {
    const r = await kubectl(["get", "--raw", `/api/v1/nodes/${NODE}/proxy/containerLogs/${fx.namespace}/logger/main?tailLines=1`]);
    expect(r.stdout).toMatch(/^tick \d+\n$/);
    const missing = await kubectl(["get", "--raw", `/api/v1/nodes/${NODE}/proxy/containerLogs/${fx.namespace}/nope/main`]);
    expect(missing.code).not.toBe(0);
  });
});

describe("the port refuses whoever is not authenticated and authorized, and runs nothing for them", () => {
  const base = () => `https://127.0.0.1:${port}`;
  const marker = (who: string) => `/tmp/pwned-${who}`;
  const endpoints = (who: string): { name: string; args: string[] }[] => [
    { name: "GET /pods", args: ["/pods"] },
    { name: "GET /healthz", args: ["/healthz"] },
    { name: "GET /metrics", args: ["/metrics"] },
    { name: "GET /stats/summary", args: ["/stats/summary"] },
    { name: "GET /containerLogs", args: [`/containerLogs/${fx.namespace}/logger/main`] },
    { name: "POST /run", args: ["-X", "POST", `/run/${fx.namespace}/logger/main?cmd=touch%20${marker(who)}-run`] },
    {
      name: "POST /exec (SPDY upgrade)",
      args: ["-X", "POST", "-H", "Connection: Upgrade", "-H", "Upgrade: SPDY/3.1", "-H", "X-Stream-Protocol-Version: v4.channel.k8s.io",
        `/exec/${fx.namespace}/logger/main?command=touch&command=${marker(who)}-exec&output=1`],
    },
    {
      name: "GET /attach (WebSocket upgrade)",
      args: ["-H", "Connection: Upgrade", "-H", "Upgrade: websocket", "-H", "Sec-WebSocket-Version: 13", "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "-H", "Sec-WebSocket-Protocol: v5.channel.k8s.io", `/attach/${fx.namespace}/echoer/main?input=1&output=1`],
    },
    { name: "POST /portForward (SPDY upgrade)", args: ["-X", "POST", "-H", "Connection: Upgrade", "-H", "Upgrade: SPDY/3.1", `/portForward/${fx.namespace}/web`] },
  ];

  /** curl's status code for the request; 0 when no HTTP answer came. */
  async function status(auth: string[], endpoint: string[], scheme = "https"): Promise<number> {
    const path = endpoint[endpoint.length - 1];
    const r = await sh(["curl", "-sk", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "20", ...auth, ...endpoint.slice(0, -1), `${scheme === "https" ? base() : `http://127.0.0.1:${port}`}${path}`]);
    return Number(r.stdout.trim() || "0");
  }

  let otherCA = "";
  let nobodyCert: string[] = [];
  let rogueCert: string[] = [];
  let saToken = "";
  beforeAll(async () => {
    otherCA = mkdtempSync(join(tmpdir(), "bunlet-kapi-rogue-"));
    const ossl = async (args: string[]) => {
      const r = await sh(["openssl", ...args]);
      if (r.code !== 0) throw new Error(`openssl ${args[0]}: ${r.stderr}`);
    };
    // A user the client CA vouches for, with no RBAC rights on nodes (the serial file is this
    // file's own: other files may sign with the shared cluster's CA at the same time).
    await ossl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=nobody/O=nogroup", "-keyout", join(otherCA, "nobody.key"), "-out", join(otherCA, "nobody.csr")]);
    await ossl(["x509", "-req", "-in", join(otherCA, "nobody.csr"), "-CA", join(pki, "client-ca.crt"), "-CAkey", join(pki, "client-ca.key"), "-CAserial", join(otherCA, "client-ca.srl"), "-CAcreateserial", "-days", "1", "-out", join(otherCA, "nobody.crt")]);
    nobodyCert = ["--cert", join(otherCA, "nobody.crt"), "--key", join(otherCA, "nobody.key")];
    // system:masters, but signed by a CA the node does not trust.
    await ossl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=rogue-ca", "-keyout", join(otherCA, "ca.key"), "-out", join(otherCA, "ca.crt")]);
    await ossl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=admin/O=system:masters", "-keyout", join(otherCA, "rogue.key"), "-out", join(otherCA, "rogue.csr")]);
    await ossl(["x509", "-req", "-in", join(otherCA, "rogue.csr"), "-CA", join(otherCA, "ca.crt"), "-CAkey", join(otherCA, "ca.key"), "-CAcreateserial", "-days", "1", "-out", join(otherCA, "rogue.crt")]);
    rogueCert = ["--cert", join(otherCA, "rogue.crt"), "--key", join(otherCA, "rogue.key")];
    // A real service account token: the TokenReview accepts it, the SubjectAccessReview does not.
    expect((await kubectl(["create", "serviceaccount", "viewer"])).code).toBe(0);
    saToken = (await kubectl(["create", "token", "viewer"])).stdout.trim();
    expect(saToken.length).toBeGreaterThan(20);
  }, 120_000);
  afterAll(() => rmSync(otherCA, { recursive: true, force: true }));

  test("a client the cluster trusts with the right (system:masters) is let in: the refusals below are about the caller", async () => {
    expect(await status(["--cert", join(pki, "admin.crt"), "--key", join(pki, "admin.key")], ["/pods"])).toBe(200);
    expect(await status(["--cert", join(pki, "admin.crt"), "--key", join(pki, "admin.key")], ["/healthz"])).toBe(200);
  });

  const callers: [string, () => string[], number][] = [
    ["no client certificate and no token", () => [], 401],
    ["a certificate from another CA", () => rogueCert, 401],
    ["a token the apiserver rejects", () => ["-H", "Authorization: Bearer not-a-real-token"], 401],
    ["a certificate of a user without the RBAC right", () => nobodyCert, 403],
    ["a service account token without the RBAC right", () => ["-H", `Authorization: Bearer ${saToken}`], 403],
  ];
  for (const [who, auth, want] of callers) {
    test(`${who}: ${want} on every endpoint`, async () => {
      const got: Record<string, number> = {};
      for (const e of endpoints(who.replace(/\W+/g, "-"))) got[e.name] = await status(auth(), e.args);
      expect(got).toEqual(Object.fromEntries(endpoints("").map((e) => [e.name, want])));
    }, 120_000);
  }

  test("plain HTTP gets no answer from the TLS port", async () => {
    const codes = await Promise.all(endpoints("plain-http").map((e) => status([], e.args, "http")));
    for (const c of codes) expect(c === 0 || c >= 400).toBe(true);
  });

  test("nothing the refused requests asked for ran", async () => {
    const r = await kubectl(["exec", "logger", "--", "sh", "-c", "ls /tmp | grep -c pwned || true"]);
    expect(r.stdout.trim()).toBe("0");
  });
});
