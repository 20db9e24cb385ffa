import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const unitPath = join(import.meta.dir, "../../../scripts/systemd/bunlet.service");

/** The unit's [Section] key=value pairs (the last value of a repeated key wins, as systemd's do for these). */
function parseUnit(text: string): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  let section = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = header[1];
      out[section] = {};
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0 || section === "") throw new Error(`not a key=value line in a section: ${line}`);
    out[section][line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

test("the shipped unit stops bunlet alone, delegates cgroups and always restarts it", () => {
  const unit = parseUnit(readFileSync(unitPath, "utf8"));
  expect(unit.Service).toMatchObject({ KillMode: "process", Delegate: "yes", Restart: "always" });
  // The README's install commands put the binary and the config here.
  expect(unit.Service.ExecStart).toStartWith("/usr/local/bin/bunlet --config=/etc/bunlet/config.yaml");
  expect(unit.Unit.StartLimitIntervalSec).toBe("0");
  expect(unit.Install.WantedBy).toBe("multi-user.target");
});

test("README's install section installs this unit to the path it names", () => {
  const readme = readFileSync(join(import.meta.dir, "../../../README.md"), "utf8");
  expect(readme).toContain("install -m 0644 scripts/systemd/bunlet.service /etc/systemd/system/bunlet.service");
  expect(readme).toContain("install -m 0755 dist/bunlet /usr/local/bin/bunlet");
});
