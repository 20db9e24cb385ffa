// The architecture check (scripts/check-architecture.ts) as part of the suite, so CI fails on an
// import that bypasses an index.ts, an import against the dependency direction, or an unused export.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { checkArchitecture } from "../../scripts/check-architecture.ts";

// Loading the TypeScript parser and reading every file takes a few seconds on a loaded machine.
test("imports go through each folder's index.ts, follow the dependency direction, and every export is used", () => {
  expect(checkArchitecture(join(import.meta.dir, "../.."))).toEqual([]);
}, 60_000);
