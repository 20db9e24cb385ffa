import { describe, expect, test } from "bun:test";
import { manifestErrorDetail } from "../../../src/podconfig/manifest-errors.ts";
import { ManifestError } from "../../../src/podconfig/errors.ts";

describe("manifestErrorDetail (the /healthz?verbose lines of rejected manifests)", () => {
  test("nothing when every manifest is fine", () => {
    expect(manifestErrorDetail(new Map(), new Map())).toEqual({});
  });

  test("a count, then one line per manifest naming the field and the kind of problem, never the value, saying whose last good pod keeps running", () => {
    const broken = new ManifestError("/m/web.yaml", [{ code: "Required", field: "spec.containers[0].image", detail: "Required value" }]);
    const dup = new ManifestError("/m/web.yaml.bak", [{ code: "Duplicate", field: "metadata.name", detail: "Duplicate value: pod default/web-n is also defined by /m/web.yaml" }]);
    const detail = manifestErrorDetail(
      new Map([
        ["/m/web.yaml", broken],
        ["/m/web.yaml.bak", dup],
      ]),
      new Map([["uid-web", broken]]),
    );
    expect(detail).toEqual({
      "rejected manifests": "2",
      "rejected manifest /m/web.yaml": "spec.containers[0].image: Required value (see the log) (its last good pod keeps running)",
      "rejected manifest /m/web.yaml.bak": "metadata.name: Duplicate value (see the log)",
    });
  });

  test("a value in the error (a secret in an env var, a YAML line) is not echoed", () => {
    const bad = new ManifestError("/m/db.yaml", [{ code: "Invalid", field: "spec.containers[0].env[0].value", detail: 'Invalid value: "hunter2-secret": must be short' }]);
    const syntax = new ManifestError("/m/x.yaml", [{ code: "Syntax", field: "", detail: "yaml: line 3: password: s3cr3t" }]);
    const detail = manifestErrorDetail(new Map([["/m/db.yaml", bad], ["/m/x.yaml", syntax]]), new Map());
    expect(JSON.stringify(detail)).not.toContain("hunter2");
    expect(JSON.stringify(detail)).not.toContain("s3cr3t");
    expect(detail["rejected manifest /m/db.yaml"]).toBe("spec.containers[0].env[0].value: Invalid value (see the log)");
    expect(detail["rejected manifest /m/x.yaml"]).toBe("cannot be parsed (see the log)");
  });
});
