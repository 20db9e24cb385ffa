import { describe, expect, test } from "bun:test";
import { exitCodeOf } from "../../../src/cli/crictl/remotecommand.ts";

describe("the exit status a v1 Status on the error channel stands for", () => {
  const cases: [string, Parameters<typeof exitCodeOf>[0], ReturnType<typeof exitCodeOf>][] = [
    ["Success", { status: "Success" }, { code: 0 }],
    ["NonZeroExitCode carries the code", { status: "Failure", reason: "NonZeroExitCode", details: { causes: [{ reason: "ExitCode", message: "42" }] } }, { code: 42 }],
    ["any other failure is 1 with its message", { status: "Failure", message: "container not running" }, { code: 1, message: "container not running" }],
    ["a failure without a message", { status: "Failure" }, { code: 1, message: "error executing remote command" }],
  ];
  for (const [name, status, want] of cases) test(name, () => expect(exitCodeOf(status)).toEqual(want));
});
