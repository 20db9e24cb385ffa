import { describe, expect, test } from "bun:test";
import { nextContainerdState, type ManagedContainerdEvent, type ManagedContainerdState } from "../../../src/containerd/lifecycle.ts";

describe("managed containerd lifecycle transitions", () => {
  const cases: [string, ManagedContainerdState, ManagedContainerdEvent, ManagedContainerdState][] = [
    ["the first probe answer makes it ready", "starting", "ready", "ready"],
    ["stop during start-up stops", "starting", "stop", "stopping"],
    ["an exit during start-up is the caller's error, not a restart", "starting", "exited", "starting"],
    ["an exit while ready restarts", "ready", "exited", "restarting"],
    ["stop while ready stops", "ready", "stop", "stopping"],
    ["a restarted containerd that answers is ready again", "restarting", "ready", "ready"],
    ["a restarted containerd that exits again keeps restarting", "restarting", "exited", "restarting"],
    ["stop while restarting stops", "restarting", "stop", "stopping"],
    ["a late probe answer after stop() does not revive it", "stopping", "ready", "stopping"],
    ["the exit stop() caused is no restart", "stopping", "exited", "stopping"],
    ["a second stop() changes nothing", "stopping", "stop", "stopping"],
    ["stopping ends in stopped", "stopping", "stopped", "stopped"],
    ["stopped is final", "stopped", "ready", "stopped"],
    ["stopped ignores exits", "stopped", "exited", "stopped"],
    ["stopped is only reached from stopping", "ready", "stopped", "ready"],
  ];
  for (const [name, from, event, to] of cases) {
    test(name, () => {
      expect(nextContainerdState(from, event)).toBe(to);
    });
  }
});
