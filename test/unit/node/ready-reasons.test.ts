import { expect, test } from "bun:test";
import { notReadyReasons } from "../../../src/node/ready-reasons.ts";

test.each([
  ["all healthy: no reason", { runtime: [], network: [], pleg: { ok: true } }, []],
  [
    "the runtime's first error, then PLEG, then the runtime's others, the network, shutdown",
    { runtime: ["container runtime is down", "container runtime not ready"], network: ["network is not ready"], pleg: { ok: false, message: "pleg was last seen active 3m0s ago" }, shutdown: "node is shutting down" },
    ["container runtime is down", "PLEG is not healthy: pleg was last seen active 3m0s ago", "container runtime not ready", "network is not ready", "node is shutting down"],
  ],
  ["an unhealthy PLEG without a message", { runtime: [], network: [], pleg: { ok: false } }, ["PLEG is not healthy: "]],
  ["network and shutdown only", { runtime: [], network: ["network is not ready"], pleg: { ok: true }, shutdown: "node is shutting down" }, ["network is not ready", "node is shutting down"]],
])("NotReady reasons: %s", (_name, errors, want) => {
  expect(notReadyReasons(errors)).toEqual(want);
});
