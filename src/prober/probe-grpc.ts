/**
 * The grpc probe (pkg/probe/grpc): grpc.health.v1.Health/Check(service) over plaintext HTTP/2
 * to host:port. SERVING succeeds; any other status, an RPC error, a refused connection or the
 * timeout fails, with the kubelet's wording. The two health messages are tiny, so they are
 * encoded by hand with protobuf-es's wire helpers instead of generated code.
 */
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { Client, connectivityState, credentials, Metadata, status as GrpcStatus, type ServiceError } from "@grpc/grpc-js";
import type { Clock } from "../lib/index.ts";
import { PROBE_USER_AGENT, type ProbeOutcome } from "./probe-types.ts";

const HEALTH_CHECK_METHOD = "/grpc.health.v1.Health/Check";

/** grpc.health.v1.HealthCheckResponse.ServingStatus. */
const SERVING_STATUS = ["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"] as const;

/** HealthCheckRequest { string service = 1; } */
function encodeHealthCheckRequest(service: string): Buffer {
  const w = new BinaryWriter();
  if (service !== "") w.tag(1, WireType.LengthDelimited).string(service);
  return Buffer.from(w.finish());
}

/** HealthCheckResponse { ServingStatus status = 1; } → the status number (0 when absent). */
function decodeHealthCheckResponse(bytes: Uint8Array): number {
  const r = new BinaryReader(bytes);
  let status = 0;
  while (r.pos < r.len) {
    const [field, type] = r.tag();
    if (field === 1 && type === WireType.Varint) status = r.int32();
    else r.skip(type, field);
  }
  return status;
}

export interface GrpcProbeRequest {
  host: string;
  port: number;
  service: string;
  timeoutMs: number;
  clock: Clock;
  signal?: AbortSignal;
}

export function probeGrpc(req: GrpcProbeRequest): Promise<ProbeOutcome> {
  const address = req.host.includes(":") ? `[${req.host}]:${req.port}` : `${req.host}:${req.port}`;
  const seconds = `${req.timeoutMs / 1000}s`;
  return new Promise<ProbeOutcome>((resolve, reject) => {
    if (req.signal?.aborted) return reject(req.signal.reason);
    const client = new Client(address, credentials.createInsecure(), { "grpc.primary_user_agent": PROBE_USER_AGENT });
    let timedOut = false;
    let connected = false;
    const call = client.makeUnaryRequest(
      HEALTH_CHECK_METHOD,
      (service: string) => encodeHealthCheckRequest(service),
      (bytes: Buffer) => decodeHealthCheckResponse(bytes),
      req.service,
      new Metadata(),
      (err: ServiceError | null, status?: number) => {
        timer.cancel();
        req.signal?.removeEventListener("abort", onAbort);
        client.close();
        if (req.signal?.aborted) return reject(req.signal.reason);
        if (err) return resolve({ result: "Failure", output: describeError(err, timedOut, connected, address, seconds) });
        const name = SERVING_STATUS[status ?? 0] ?? String(status);
        if (name === "SERVING") return resolve({ result: "Success", output: "" });
        resolve({ result: "Failure", output: `service unhealthy (responded with ${JSON.stringify(name)})` });
      },
    );
    const timer = req.clock.setTimer(req.timeoutMs, () => {
      timedOut = true;
      connected = client.getChannel().getConnectivityState(false) === connectivityState.READY;
      call.cancel();
    });
    const onAbort = () => call.cancel();
    req.signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function describeError(err: ServiceError, timedOut: boolean, connected: boolean, address: string, seconds: string): string {
  if (timedOut) {
    return connected ? `timeout: health rpc did not complete within ${seconds}` : `timeout: failed to connect service ${JSON.stringify(address)} within ${seconds}`;
  }
  if (err.code === GrpcStatus.UNIMPLEMENTED) {
    return `this server does not implement the grpc health protocol (grpc.health.v1.Health): ${err.details}`;
  }
  if (err.code === GrpcStatus.UNAVAILABLE) return `error: failed to connect service at ${JSON.stringify(address)}: ${err.details}`;
  return `error: health rpc probe failed: ${GrpcStatus[err.code]}: ${err.details}`;
}
