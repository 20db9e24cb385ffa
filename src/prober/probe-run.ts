/**
 * Running one probe (the kubelet's prober.runProbe and pkg/probe/*): exec through CRI ExecSync,
 * an HTTP GET, a TCP connect or a gRPC health check against the container. The answer is an
 * outcome (Success, Warning, Failure, Unknown) with the probe's output; a probe that could not be
 * run at all (a port name that does not exist, a runtime error) throws a ProbeError, whose result
 * the worker throws away, as the kubelet does.
 */
import type { Container, Probe } from "../api/index.ts";
import { resolveContainerPort } from "../container/index.ts";
import { GrpcCode, isCriError, type CriClient } from "../cri/index.ts";
import type { Clock } from "../lib/index.ts";
import { probeHttp } from "./probe-http.ts";
import { probeTcp } from "./probe-tcp.ts";
import { cappedText, ProbeError, type ProbeOutcome } from "./probe-types.ts";

export interface ProbeTarget {
  cri: Pick<CriClient, "runtime">;
  /** CRI id of the container to exec in. */
  containerId: string;
  /** The container spec, for named ports. */
  container: Container;
  /** Default host of network probes. */
  podIP: string;
  clock: Clock;
  signal?: AbortSignal;
}

function probeTimeoutMs(probe: Probe): number {
  return Math.max(1, probe.timeoutSeconds || 1) * 1000;
}

export async function runProbe(probe: Probe, target: ProbeTarget): Promise<ProbeOutcome> {
  const timeoutMs = probeTimeoutMs(probe);
  const net = { clock: target.clock, timeoutMs, signal: target.signal };
  if (probe.exec) return probeExec(probe.exec.command ?? [], timeoutMs, target);
  if (probe.httpGet) {
    const h = probe.httpGet;
    return probeHttp({ ...net, scheme: h.scheme ?? "HTTP", host: h.host || requireIP(target), port: resolvePort(h.port, target.container), path: h.path ?? "/", headers: h.httpHeaders ?? [] });
  }
  if (probe.tcpSocket) {
    return probeTcp({ ...net, host: probe.tcpSocket.host || requireIP(target), port: resolvePort(probe.tcpSocket.port, target.container) });
  }
  if (probe.grpc) {
    // @grpc/grpc-js is loaded by the first gRPC probe, not at start (docs/lean.md).
    const { probeGrpc } = await import("./probe-grpc.ts");
    return probeGrpc({ ...net, host: requireIP(target), port: resolvePort(probe.grpc.port, target.container), service: probe.grpc.service ?? "" });
  }
  throw new ProbeError("missing probe handler: exec, httpGet, tcpSocket or grpc is required");
}

function requireIP(target: ProbeTarget): string {
  if (!target.podIP) throw new ProbeError("the pod has no IP yet and the probe names no host");
  return target.podIP;
}

/** The probe's port, by number or by the name of one of the container's ports, in 1..65535. */
function resolvePort(port: number | string, container: Container): number {
  const n = resolveContainerPort(port, container);
  if (n === undefined) throw new ProbeError(`port ${JSON.stringify(port)} not found in container ${container.name}'s ports`);
  if (!Number.isInteger(n) || n <= 0 || n >= 65536) throw new ProbeError(`invalid port number: ${n}`);
  return n;
}

async function probeExec(command: string[], timeoutMs: number, target: ProbeTarget): Promise<ProbeOutcome> {
  let res;
  try {
    res = await target.cri.runtime.execSync(
      { containerId: target.containerId, cmd: command, timeout: BigInt(timeoutMs / 1000) },
      { signal: target.signal },
    );
  } catch (err) {
    // The runtime enforces timeoutSeconds and answers DEADLINE_EXCEEDED: a timed-out command
    // is a failed probe (ExecProbeTimeout), not an error.
    if (isCriError(err, GrpcCode.DEADLINE_EXCEEDED)) {
      return { result: "Failure", output: `command ${JSON.stringify(command)} timed out` };
    }
    throw new ProbeError(`exec ${JSON.stringify(command)} in container ${target.containerId}: ${(err as Error).message}`, { cause: err });
  }
  const output = cappedText([res.stdout, res.stderr]);
  return { result: res.exitCode === 0 ? "Success" : "Failure", output };
}
