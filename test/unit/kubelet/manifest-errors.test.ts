import { describe, expect, test } from "bun:test";
import { manifestErrorDetail } from "../../../src/kubelet/manifest-errors.ts";
import { ManifestError } from "../../../src/podconfig/index.ts";

describe("manifestErrorDetail (the /healthz?verbose lines of rejected manifests)", () => {
  test("nothing when every manifest is fine", () => {
    expect(manifestErrorDetail(new Map(), new Map())).toEqual({});
  });

  test("a count, then one readable line per manifest, saying whose last good pod keeps running", () => {
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
      "rejected manifest /m/web.yaml": "spec.containers[0].image: Required value (its last good pod keeps running)",
      "rejected manifest /m/web.yaml.bak": "metadata.name: Duplicate value: pod default/web-n is also defined by /m/web.yaml",
    });
  });
});
