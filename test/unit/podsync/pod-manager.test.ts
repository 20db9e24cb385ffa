import { expect, test } from "bun:test";
import { PodManager } from "../../../src/podsync/pod-manager.ts";
import { configPod } from "./fakes.ts";

test("staticPods: the desired static pods of a full name, not an API pod of the same name", () => {
  const podManager = new PodManager(() => 0);
  podManager.upsert(configPod("web", { uid: "u1", source: "file" }));
  podManager.upsert(configPod("web", { uid: "u2", source: "api" }));
  podManager.upsert(configPod("db", { uid: "u3", source: "http" }));
  expect(podManager.staticPods("web_default").map((p) => p.metadata.uid)).toEqual(["u1"]);
  expect(podManager.staticPods("db_default").map((p) => p.metadata.uid)).toEqual(["u3"]);
  expect(podManager.staticPods("web_other")).toEqual([]);
});
