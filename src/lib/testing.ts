// Test helpers of the library layer: a clock tests drive by hand and a logger that keeps its
// lines. A door of their own, so that production code (which goes through index.ts) cannot
// reach them; the architecture check holds that.
export { FakeClock, flushMicrotasks } from "./clock.ts";
export { createMemoryLogger } from "./log.ts";
