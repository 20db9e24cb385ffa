// JavaScriptCore's options: the built binary re-executes itself once with the variables it still
// needs, keeping its arguments and environment; a variable already set is the user's (or the first
// run's) and stops the re-exec; run from source nothing happens; a failed execve is one line and
// bunlet goes on.
import { expect, test } from "bun:test";
import { JSC_OPTIONS, restartWithJscOptions } from "../../../src/boot/jsc-options.ts";

const COMPILED = ["bun", "/$bunfs/root/bunlet", "--v=2", "--pod-manifest-path=/etc/kubernetes/manifests"];
const SOURCE = ["/usr/bin/bun", "/work/src/main.ts", "--v=2"];

function run(argv: string[], env: Record<string, string | undefined>, fail?: Error) {
  const execs: { file: string; args: string[]; env: Record<string, string> }[] = [];
  const warnings: string[] = [];
  restartWithJscOptions({
    env,
    argv,
    argv0: "bunlet",
    execPath: "/usr/local/bin/bunlet",
    execve: (file, args, e) => {
      execs.push({ file, args, env: e });
      if (fail) throw fail;
    },
    warn: (line) => warnings.push(line),
  });
  return { execs, warnings };
}

test("the options are the optimising tiers off: DFG and FTL", () => {
  expect(JSC_OPTIONS).toEqual({ BUN_JSC_useDFGJIT: "0", BUN_JSC_useFTLJIT: "0" });
});

test.each([
  ["compiled, nothing set: re-executed with the options", COMPILED, { PATH: "/usr/bin" }, 1],
  ["compiled, the user kept both tiers on", COMPILED, { BUN_JSC_useDFGJIT: "1", BUN_JSC_useFTLJIT: "1" }, 0],
  ["compiled, the user set one: re-executed with the other", COMPILED, { BUN_JSC_useFTLJIT: "1" }, 1],
  ["compiled, the second run (set by the first)", COMPILED, { BUN_JSC_useDFGJIT: "0", BUN_JSC_useFTLJIT: "0" }, 0],
  ["from source: never", SOURCE, {}, 0],
  ["no entry in argv: never", ["bun"], {}, 0],
] as const)("%s", (_name, argv, env, execs) => {
  expect(run([...argv], env).execs.length).toBe(execs);
});

test("the user's one setting is kept, the other added", () => {
  expect(run(COMPILED, { BUN_JSC_useFTLJIT: "1" }).execs[0]?.env).toEqual({ BUN_JSC_useFTLJIT: "1", BUN_JSC_useDFGJIT: "0" });
});

test("the re-exec keeps the executable, the name it was started by, the user's arguments and the environment, and adds only what is missing", () => {
  const { execs, warnings } = run(COMPILED, { PATH: "/usr/bin", NOTIFY_SOCKET: "/run/systemd/notify", UNSET: undefined });
  expect(execs).toEqual([
    {
      file: "/usr/local/bin/bunlet",
      args: ["bunlet", "--v=2", "--pod-manifest-path=/etc/kubernetes/manifests"],
      env: { PATH: "/usr/bin", NOTIFY_SOCKET: "/run/systemd/notify", BUN_JSC_useDFGJIT: "0", BUN_JSC_useFTLJIT: "0" },
    },
  ]);
  expect(warnings).toEqual([]);
});

test("a failed execve is one line naming the executable and the setting; bunlet goes on", () => {
  const { warnings } = run(COMPILED, {}, new Error("EACCES: permission denied"));
  expect(warnings).toEqual([
    "bunlet: could not re-execute /usr/local/bin/bunlet with BUN_JSC_useDFGJIT=0 BUN_JSC_useFTLJIT=0 (EACCES: permission denied); running with JavaScriptCore's defaults",
  ]);
});
