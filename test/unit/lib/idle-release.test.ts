import { describe, expect, test } from "bun:test";
import { IdleRelease } from "../../../src/lib/index.ts";
import { createMemoryLogger, FakeClock } from "../../../src/lib/testing.ts";

/** collectTook: how long each collection says it took, in ms (the first, the second, …; the last repeats). */
function setup(burstCollectMs = 0, collectTook: number[] = [10]) {
  const clock = new FakeClock();
  const log = createMemoryLogger();
  const releases: number[] = [];
  const collections: number[] = [];
  const idle = new IdleRelease({
    clock,
    log,
    quietMs: 10_000,
    release: () => void releases.push(clock.now()),
    collectMs: 15_000,
    collect: () => collectTook[Math.min(collections.push(clock.now()), collectTook.length) - 1]!,
    burstCollectMs,
    burstCollectShare: 0.01,
    rss: () => 100 * 2 ** 20,
  });
  return { clock, log, releases, collections, idle };
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

  test("at rest after a release, a full collection every collectMs until the next activity", async () => {
    const { clock, releases, collections, idle } = setup();
    const t0 = clock.now();
    const at = (...ms: number[]) => ms.map((m) => t0 + m);
    idle.activity();
    await clock.advance(10_000);
    expect(releases).toEqual(at(10_000));
    await clock.advance(45_000);
    expect(collections).toEqual(at(25_000, 40_000, 55_000));
    // Activity stops the collections; the burst's own release comes first, then they resume.
    await clock.advance(5_000);
    idle.activity();
    await clock.advance(10_000);
    expect(collections).toEqual(at(25_000, 40_000, 55_000));
    expect(releases).toEqual(at(10_000, 70_000));
    await clock.advance(15_000);
    expect(collections).toEqual(at(25_000, 40_000, 55_000, 85_000));
  });

  test("no collections before the first release, nor after stop, nor with collectMs 0", async () => {
    const { clock, collections, idle } = setup();
    await clock.advance(60_000);
    expect(collections).toEqual([]);
    const t0 = clock.now();
    idle.activity();
    await clock.advance(25_000);
    expect(collections).toEqual([t0 + 25_000]);
    idle.stop();
    await clock.advance(60_000);
    expect(collections).toEqual([t0 + 25_000]);

    const none: number[] = [];
    const off = new IdleRelease({ clock, log: createMemoryLogger(), quietMs: 10_000, release: () => {}, collectMs: 0, collect: () => none.push(clock.now()), burstCollectMs: 0, burstCollectShare: 0.01, rss: () => 0 });
    off.activity();
    await clock.advance(120_000);
    expect(none).toEqual([]);
  });

  test("inside a burst, a full collection every burstCollectMs while the activity continues", async () => {
    const { clock, releases, collections, idle } = setup(3_000);
    const t0 = clock.now();
    // A burst: activity every 500 ms for 10 s; the first collection is due 3 s into it.
    for (let t = 0; t < 10_000; t += 500) {
      idle.activity();
      await clock.advance(500);
    }
    expect(collections).toEqual([t0 + 3_000, t0 + 6_000, t0 + 9_000]);
    expect(releases).toEqual([]);
    // The release ends the burst; the next burst counts its 3 s from its own first activity.
    await clock.advance(10_000);
    expect(releases).toEqual([t0 + 19_500]);
    await clock.advance(2_000);
    const t1 = clock.now();
    for (let t = 0; t < 4_000; t += 1_000) {
      idle.activity();
      await clock.advance(1_000);
    }
    expect(collections).toEqual([t0 + 3_000, t0 + 6_000, t0 + 9_000, t1 + 3_000]);
  });

  test("activity further apart than burstCollectMs collects at the next activity, never on a timer", async () => {
    const { clock, collections, idle } = setup(3_000);
    const t0 = clock.now();
    idle.activity();
    await clock.advance(2_000);
    expect(collections).toEqual([]);
    await clock.advance(5_000);
    expect(collections).toEqual([]);
    idle.activity();
    expect(collections).toEqual([t0 + 7_000]);
  });

  // [what each collection took, in ms (the last repeats); when they ran in a 60 s burst of activity every 500 ms, in s]
  const spacings: [string, number[], number[]][] = [
    ["10 ms each: every 3 s", [10], [3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57]],
    ["30 ms each: every 3 s", [30], [3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57]],
    ["50 ms each: every 5 s", [50], [3, 8, 13, 18, 23, 28, 33, 38, 43, 48, 53, 58]],
    ["125 ms each: every 12.5 s", [125], [3, 15.5, 28, 40.5, 53]],
    ["250 ms each: every 25 s", [250], [3, 28, 53]],
    ["one of 500 ms, then 10 ms each: 50 s, then every 3 s again", [500, 10], [3, 53, 56, 59]],
  ];
  test.each(spacings)("inside a burst, the collections take at most 1 %% of its time: %s", async (_, took, at) => {
    const { clock, collections, idle } = setup(3_000, took);
    const t0 = clock.now();
    for (let t = 0; t < 60_000; t += 500) {
      idle.activity();
      await clock.advance(500);
    }
    expect(collections).toEqual(at.map((s) => t0 + s * 1000));
  });

  test("no collections inside a burst with burstCollectMs 0", async () => {
    const { clock, collections, idle } = setup(0);
    for (let t = 0; t < 9_000; t += 500) {
      idle.activity();
      await clock.advance(500);
    }
    expect(collections).toEqual([]);
  });
});
