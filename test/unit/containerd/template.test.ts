import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderContainerdConfig } from "../../../src/containerd/config.ts";
import { applyConfigTemplate } from "../../../src/containerd/template.ts";

const dir = mkdtempSync(join(tmpdir(), "bunlet-tmpl-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CRI = `plugins."io.containerd.grpc.v1.cri"`;
const RUNTIME = `plugins."io.containerd.cri.v1.runtime"`;
let n = 0;
function template(text: string): string {
  const file = join(dir, `config-${n++}.toml.tmpl`);
  writeFileSync(file, text);
  return file;
}
type Tree = Record<string, any>;

describe("the containerd config template (k3s's config.toml.tmpl)", () => {
  const base = renderContainerdConfig({ rootDir: "/var/lib/bunlet", extraRuncHandlers: [] });
  const base3 = renderContainerdConfig({ rootDir: "/var/lib/bunlet", configVersion: 3 });

  test("no template: bunlet's config as rendered", () => {
    expect(applyConfigTemplate(join(dir, "absent.toml.tmpl"), base)).toEqual({ text: base, fromTemplate: false });
  });

  test("the base plus a gVisor handler and a mirror: bunlet's settings stay, the user's tables are added", () => {
    const file = template(
      [
        '{{ template "base" . }}',
        `[${CRI}.containerd.runtimes.runsc]`,
        '  runtime_type = "io.containerd.runsc.v1"',
        `[${CRI}.registry.mirrors."docker.io"]`,
        '  endpoint = ["https://mirror.example"]',
        "",
      ].join("\n"),
    );
    const { text, fromTemplate } = applyConfigTemplate(file, base);
    expect(fromTemplate).toBe(true);
    expect(text.startsWith(base)).toBe(true);
    const cri = (Bun.TOML.parse(text) as Tree).plugins["io.containerd.grpc.v1.cri"];
    expect(cri.containerd.runtimes.runsc).toEqual({ runtime_type: "io.containerd.runsc.v1" });
    expect(cri.containerd.runtimes.runc.runtime_type).toBe("io.containerd.runc.v2");
    expect(cri.sandbox_image).toBe("registry.k8s.io/pause:3.10.2");
    expect(cri.registry.mirrors).toEqual({ "127.0.0.1:5000": { endpoint: ["http://127.0.0.1:5000"] }, "docker.io": { endpoint: ["https://mirror.example"] } });
  });

  test("Go's trim markers and spacing are read; containerd 2.x's layout takes handlers the same way", () => {
    const file = template(`{{- template "base" .  -}}\n[${RUNTIME}.containerd.runtimes.kata]\n  runtime_type = "io.containerd.kata.v2"\n`);
    const rt = (Bun.TOML.parse(applyConfigTemplate(file, base3).text) as Tree).plugins["io.containerd.cri.v1.runtime"];
    expect(Object.keys(rt.containerd.runtimes).sort()).toEqual(["kata", "runc"]);
  });

  test("a template without the base is the whole config", () => {
    const own = 'version = 2\nroot = "/srv/c"\n';
    expect(applyConfigTemplate(template(own), base)).toEqual({ text: own, fromTemplate: true });
  });

  test("a table the base defines, given again, is refused with the file named", () => {
    const file = template(`{{ template "base" . }}\n[${CRI}]\n  sandbox_image = "example.com/pause:1"\n`);
    expect(() => applyConfigTemplate(file, base)).toThrow(
      new RegExp(`^containerd config template ${file} does not make valid TOML \\(TOML Parse error: Cannot redefine table`),
    );
  });

  test("another template action is refused: bunlet fills in the base only", () => {
    const file = template('{{ template "base" . }}\n# {{ .NodeConfig.AgentConfig.Snapshotter }}\n');
    expect(() => applyConfigTemplate(file, base)).toThrow(
      `containerd config template ${file}: "{{ .NodeConfig.AgentConfig.Snapshotter }}" is not supported; bunlet fills in {{ template "base" . }} (the config it renders) and nothing else`,
    );
  });
});
