/**
 * One error type for everything the API client can fail with (apimachinery's StatusError, plus
 * the failures that never reach the apiserver). Callers decide on `code` and `reason`, never on
 * the message, which is for people: it says what was asked of which path and what came back.
 */
import type { Status } from "kubernetes-types/meta/v1";

/**
 * metav1.StatusReason values the apiserver sends, and two of bunlet's own for requests that got
 * no HTTP answer: "ConnectionFailed" (refused, reset, DNS, TLS) and "ClientTimeout" (bunlet's
 * own per-request deadline passed).
 */
export type ApiErrorReason =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Gone"
  | "Expired"
  | "Invalid"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "RequestEntityTooLarge"
  | "UnsupportedMediaType"
  | "TooManyRequests"
  | "InternalError"
  | "ServiceUnavailable"
  | "Timeout"
  | "ServerTimeout"
  | "Unknown"
  | "ConnectionFailed"
  | "ClientTimeout";

/** apimachinery's NewGenericServerResponse: the reason a bare HTTP code stands for. */
const reasonByCode: Record<number, ApiErrorReason> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Gone",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

export class ApiError extends Error {
  override readonly name = "ApiError";
  /** The HTTP status code; 0 when no answer came (reason ConnectionFailed or ClientTimeout). */
  readonly code: number;
  readonly reason: ApiErrorReason;
  /** The Status object the apiserver sent, when it sent one. */
  readonly status?: Status;
  /** Seconds the apiserver asked the client to wait (Retry-After or status.details.retryAfterSeconds). */
  readonly retryAfterSeconds?: number;

  constructor(
    message: string,
    opts: { code: number; reason: ApiErrorReason; status?: Status; retryAfterSeconds?: number; cause?: unknown },
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.code = opts.code;
    this.reason = opts.reason;
    this.status = opts.status;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

/** The reason of a Status (from a response body or a watch ERROR event), or the code's generic one. */
function reasonOf(code: number, status?: Status): ApiErrorReason {
  const r = status?.reason;
  if (r) return r as ApiErrorReason;
  return reasonByCode[code] ?? (code >= 500 ? "InternalError" : "Unknown");
}

/** An ApiError from an HTTP answer: the Status in the body when there is one. */
export function errorFromResponse(what: string, code: number, body: string, retryAfterHeader?: string | null): ApiError {
  let status: Status | undefined;
  try {
    const parsed = JSON.parse(body) as { kind?: string };
    if (parsed && parsed.kind === "Status") status = parsed as Status;
  } catch {
    // not JSON: a proxy's HTML page, an empty body
  }
  const retryHeader = retryAfterHeader ? Number(retryAfterHeader) : undefined;
  const retryAfterSeconds = status?.details?.retryAfterSeconds ?? (Number.isFinite(retryHeader) ? retryHeader : undefined);
  const detail = status?.message ?? (body.trim().slice(0, 200) || "(empty body)");
  return new ApiError(`${what}: ${code} ${reasonOf(code, status)}: ${detail}`, {
    code,
    reason: reasonOf(code, status),
    status,
    retryAfterSeconds,
  });
}

/** An ApiError from a watch ERROR event's Status object. */
export function errorFromStatus(what: string, status: Status): ApiError {
  const code = status.code ?? 500;
  return new ApiError(`${what}: ${code} ${reasonOf(code, status)}: ${status.message ?? ""}`, { code, reason: reasonOf(code, status), status });
}

function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}
export const isNotFound = (err: unknown) => isApiError(err) && err.reason === "NotFound";
export const isAlreadyExists = (err: unknown) => isApiError(err) && err.reason === "AlreadyExists";
export const isConflict = (err: unknown) => isApiError(err) && err.reason === "Conflict";
/** The resource version asked for is too old (410 Expired or Gone): relist. */
export const isResourceExpired = (err: unknown) => isApiError(err) && (err.reason === "Expired" || err.reason === "Gone");
export const isTooManyRequests = (err: unknown) => isApiError(err) && err.reason === "TooManyRequests";
/** No HTTP answer at all: the apiserver is unreachable or did not answer in time. */
export const isUnreachable = (err: unknown) => isApiError(err) && err.code === 0;
