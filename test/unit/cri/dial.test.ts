import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCriClient, type CriError, GrpcCode } from "../../../src/cri/index.ts";

const dir = mkdtempSync(join(tmpdir(), "bunlet-dial-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function versionError(socketPath: string): Promise<CriError> {
  const cri = createCriClient({ endpoint: `unix://${socketPath}` });
  try {
    await cri.runtime.version({});
    throw new Error("Version answered");
  } catch (err) {
    return err as CriError;
  } finally {
    cri.close();
  }
}

describe("an unreachable runtime is reported as Go reports a failed dial", () => {
  test("a missing socket: no such file or directory", async () => {
    const path = join(dir, "missing.sock");
    const err = await versionError(path);
    expect(err.code).toBe(GrpcCode.UNAVAILABLE);
    expect(err.detail).toBe(`dial unix ${path}: connect: no such file or directory`);
    expect(err.message).toBe(`CRI Version failed: UNAVAILABLE: dial unix ${path}: connect: no such file or directory`);
  });

  test("a path nobody listens on: connection refused", async () => {
    const path = join(dir, "dead.sock");
    writeFileSync(path, "");
    const err = await versionError(path);
    expect(err.code).toBe(GrpcCode.UNAVAILABLE);
    expect(err.detail).toBe(`dial unix ${path}: connect: connection refused`);
  });
});
