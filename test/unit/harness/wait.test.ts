import { expect, test } from "bun:test";
import { waitFor } from "../../harness/wait.ts";

test("waitFor returns the first answer; a throwing check is 'not yet'", async () => {
  let calls = 0;
  const answer = await waitFor("the third call", () => {
    calls++;
    if (calls < 3) throw new Error(`call ${calls}`);
    return calls;
  }, { intervalMs: 1 });
  expect(answer).toBe(3);
});

test("on timeout it names what it waited for, the last error and the detail", async () => {
  const wait = waitFor("a never", () => {
    throw new Error("still no");
  }, { timeoutMs: 30, intervalMs: 5, detail: () => "the log tail" });
  await expect(wait).rejects.toThrow("timed out after 30 ms waiting for a never: still no\nthe log tail");
});

test("giveUp ends the wait at once with its reason, and is not asked once the answer came", async () => {
  const wait = waitFor("a never", () => false, { timeoutMs: 60_000, intervalMs: 5, giveUp: () => "the process exited", detail: () => "tail" });
  await expect(wait).rejects.toThrow("gave up waiting for a never: the process exited\ntail");
  let asked = 0;
  expect(await waitFor("now", () => "yes", { giveUp: () => (asked++, "no") })).toBe("yes");
  expect(asked).toBe(0);
});
