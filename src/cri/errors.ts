/**
 * One error type at the CRI boundary. Every failure of a CRI call (a gRPC status from the
 * runtime, a dead socket, a deadline) becomes a CriError carrying the gRPC status code and the
 * method, so callers branch on `code` and never on message text.
 */
export enum GrpcCode {
  OK = 0,
  CANCELLED = 1,
  UNKNOWN = 2,
  INVALID_ARGUMENT = 3,
  DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5,
  ALREADY_EXISTS = 6,
  PERMISSION_DENIED = 7,
  RESOURCE_EXHAUSTED = 8,
  FAILED_PRECONDITION = 9,
  ABORTED = 10,
  OUT_OF_RANGE = 11,
  UNIMPLEMENTED = 12,
  INTERNAL = 13,
  UNAVAILABLE = 14,
  DATA_LOSS = 15,
  UNAUTHENTICATED = 16,
}

export class CriError extends Error {
  readonly code: GrpcCode;
  readonly method: string;
  /** The runtime's own message, without our prefix. */
  readonly detail: string;

  constructor(method: string, code: GrpcCode, detail: string, options?: { cause?: unknown }) {
    super(`CRI ${method} failed: ${GrpcCode[code] ?? code}: ${detail}`, options);
    this.name = "CriError";
    this.method = method;
    this.code = code;
    this.detail = detail;
  }

  get codeName(): string {
    return GrpcCode[this.code] ?? String(this.code);
  }
}

export function isCriError(err: unknown, code?: GrpcCode): err is CriError {
  return err instanceof CriError && (code === undefined || err.code === code);
}

export const isNotFound = (err: unknown) => isCriError(err, GrpcCode.NOT_FOUND);
export const isUnimplemented = (err: unknown) => isCriError(err, GrpcCode.UNIMPLEMENTED);

/**
 * Normalises anything a transport throws into a CriError. Transports report the gRPC code as a
 * number in `code` (connect's ConnectError and grpc-js's ServiceError both do); socket errors carry
 * a string errno code and become UNAVAILABLE; an aborted call is CANCELLED or DEADLINE_EXCEEDED.
 */
export function toCriError(method: string, err: unknown, deadlineHit = false): CriError {
  if (err instanceof CriError) return err;
  const e = err as { code?: unknown; rawMessage?: unknown; details?: unknown; message?: unknown; name?: unknown };
  const detail =
    typeof e?.rawMessage === "string"
      ? e.rawMessage
      : typeof e?.details === "string" && e.details
        ? e.details
        : typeof e?.message === "string"
          ? e.message
          : String(err);
  if (deadlineHit) return new CriError(method, GrpcCode.DEADLINE_EXCEEDED, detail, { cause: err });
  // A socket-level failure wrapped by the transport (e.g. connect's INTERNAL around ENOENT) means
  // the runtime is not reachable.
  const causeCode = (e as { cause?: { code?: unknown } })?.cause?.code;
  if (typeof causeCode === "string") return new CriError(method, GrpcCode.UNAVAILABLE, detail, { cause: err });
  if (typeof e?.code === "number" && e.code >= 0 && e.code <= 16) {
    return new CriError(method, e.code as GrpcCode, detail, { cause: err });
  }
  if (e?.name === "AbortError") return new CriError(method, GrpcCode.CANCELLED, detail, { cause: err });
  if (e?.name === "TimeoutError") return new CriError(method, GrpcCode.DEADLINE_EXCEEDED, detail, { cause: err });
  if (typeof e?.code === "string") return new CriError(method, GrpcCode.UNAVAILABLE, `${e.code}: ${detail}`, { cause: err });
  return new CriError(method, GrpcCode.UNKNOWN, detail, { cause: err });
}
