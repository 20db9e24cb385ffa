/**
 * systemd-logind over the system bus, through the tools systemd ships (busctl, gdbus,
 * systemd-inhibit), as the kubelet's pkg/kubelet/nodeshutdown/systemd does over D-Bus: the
 * inhibit delay logind allows, a "delay" inhibitor lock on shutdown held by a child process, and
 * the PrepareForShutdown signal read from `gdbus monitor`. A missing bus or logind is reported by
 * logindAvailable, never thrown later.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { parseInhibitDelayMaxMs, parsePrepareForShutdown } from "./policy.ts";

const LOGIN1 = ["org.freedesktop.login1", "/org/freedesktop/login1"];
const LOGIND_CONF_DIR = "/etc/systemd/logind.conf.d";
const LOGIND_CONF_FILE = `${LOGIND_CONF_DIR}/99-kubelet.conf`;

/** Why graceful shutdown cannot work here, or undefined when logind answers on the system bus. */
export function logindUnavailableReason(): string | undefined {
  if (!process.env.DBUS_SYSTEM_BUS_ADDRESS && !existsSync("/run/dbus/system_bus_socket")) return "no system bus (/run/dbus/system_bus_socket)";
  const r = spawnSync("busctl", ["--system", "status", "org.freedesktop.login1"], { encoding: "utf8", timeout: 5000 });
  if (r.error) return `busctl: ${r.error.message}`;
  if (r.status !== 0) return `systemd-logind does not answer on the system bus: ${(r.stderr || r.stdout).trim()}`;
  return undefined;
}

export function readInhibitDelayMaxMs(): number | undefined {
  const r = spawnSync("busctl", ["--system", "get-property", ...LOGIN1, "org.freedesktop.login1.Manager", "InhibitDelayMaxUSec"], { encoding: "utf8", timeout: 5000 });
  return r.status === 0 ? parseInhibitDelayMaxMs(r.stdout) : undefined;
}

/** Raises logind's InhibitDelayMaxSec with a drop-in and reloads logind (SIGHUP), as the kubelet does. */
export function setInhibitDelayMax(seconds: number): void {
  mkdirSync(LOGIND_CONF_DIR, { recursive: true });
  writeFileSync(LOGIND_CONF_FILE, `# Written by bunlet for graceful node shutdown.\n[Login]\nInhibitDelayMaxSec=${seconds}\n`);
  const r = spawnSync("busctl", ["--system", "call", "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "KillUnit", "ssi", "systemd-logind.service", "all", "1"], {
    encoding: "utf8",
    timeout: 5000,
  });
  if (r.status !== 0) throw new Error(`could not reload systemd-logind: ${(r.stderr || r.stdout || String(r.error)).trim()}`);
}

export interface InhibitorLock {
  release(): void;
}

/** A shutdown "delay" inhibitor lock, held while the child lives. */
export function acquireInhibitorLock(): InhibitorLock {
  const child = spawn("systemd-inhibit", ["--what=shutdown", "--who=kubelet", "--why=Kubelet needs time to handle node shutdown", "--mode=delay", "sleep", "infinity"], {
    stdio: "ignore",
  });
  child.on("error", () => {});
  return { release: () => void child.kill("SIGTERM") };
}

/** Calls onPrepare for each PrepareForShutdown signal until the signal aborts. */
export function monitorShutdown(onPrepare: (active: boolean) => void, signal: AbortSignal): Promise<void> {
  const child = spawn("gdbus", ["monitor", "--system", "--dest", LOGIN1[0], "--object-path", LOGIN1[1]], { stdio: ["ignore", "pipe", "ignore"] });
  const done = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
  const lines = createInterface({ input: child.stdout });
  lines.on("line", (line) => {
    const active = parsePrepareForShutdown(line);
    if (active !== undefined) onPrepare(active);
  });
  const stop = () => child.kill("SIGTERM");
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });
  return done;
}
