import { describe, expect, test } from "bun:test";
import { IdleRelease } from "../../../src/lib/index.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";

function setup() {
  const clock = new FakeClock();
  const log = createMemoryLogger();
  const releases: number[] = [];
  const idle = new IdleRelease({ clock, log, quietMs: 10_000, release: () => void releases.push(clock.now()), rss: () => 100 * 2 ** 20 });
  return { clock, log, releases, idle };
}

describe("the idle memory release", () => {
  test("releases once, quietMs after the last activity of a burst", async () => {
    const { clock, releases, idle } = setup();
    // A burst: activity every 500 ms for 20 s.
    for (let t = 0; t < 20_000; t += 500) {
      idle.activity();
      await clock.advance(500);
    }
    expect(releases).toEqual([]);
    const last = clock.now() - 500;
    await clock.advance(10_000);
    expect(releases).toEqual([last + 10_000]);
  });

  test("not periodically while idle: the next release waits for new activity", async () => {
    const { clock, releases, idle } = setup();
    idle.activity();
    await clock.advance(10_000);
    expect(releases).toHaveLength(1);
    await clock.advance(600_000);
    expect(releases).toHaveLength(1);
    idle.activity();
    await clock.advance(9_999);
    expect(releases).toHaveLength(1);
    await clock.advance(1);
    expect(releases).toHaveLength(2);
  });

  test("nothing happens without activity, nor after stop", async () => {
    const { clock, releases, idle } = setup();
    await clock.advance(60_000);
    expect(releases).toEqual([]);
    idle.activity();
    idle.stop();
    await clock.advance(60_000);
    idle.activity();
    await clock.advance(60_000);
    expect(releases).toEqual([]);
  });

  test("each release is logged at v=2 with the resident set before and after", async () => {
    const { clock, log, idle } = setup();
    idle.activity();
    await clock.advance(10_000);
    expect(log.lines).toEqual([expect.objectContaining({ msg: "Released memory after the work went quiet", quietMs: 10_000, rssBeforeMiB: 100, rssAfterMiB: 100 })]);
  });
});
