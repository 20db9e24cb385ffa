/**
 * The API client's types: what callers pass and get (options, lists, watch events, the client
 * itself), and the two shapes the client's parts hand each other (a call, and its sent answer).
 */
import type { ListMeta, Status } from "kubernetes-types/meta/v1";
import type { Clock } from "../lib/index.ts";
import type { ExecRunner } from "./credentials.ts";
import type { WatchEventType } from "./watch-decoder.ts";

export type PatchType = "json" | "merge" | "strategic-merge";

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  signal?: AbortSignal;
  query?: Query;
  /** Overrides the client's per-request deadline; 0 = none. */
  timeoutMs?: number;
}

export interface ListOptions extends RequestOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: "NotOlderThan" | "Exact";
  limit?: number;
  continue?: string;
}

export interface WatchOptions extends RequestOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /** Server-side end of the watch; the client adds a grace period on top. */
  timeoutSeconds?: number;
  /**
   * The watch is abandoned when no event (a bookmark counts) comes for this long: a link that
   * died without a reset is found in minutes instead of at the end of timeoutSeconds. 0 = never.
   */
  idleTimeoutMs?: number;
}

export interface DeleteOptions extends RequestOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
}

export interface ObjectList<T> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

export interface WatchEvent<T> {
  type: Exclude<WatchEventType, "ERROR">;
  object: T;
}

export interface ApiClient {
  readonly server: string;
  get<T>(path: string, opts?: RequestOptions & { resourceVersion?: string }): Promise<T>;
  list<T>(path: string, opts?: ListOptions): Promise<ObjectList<T>>;
  create<T>(path: string, body: T, opts?: RequestOptions): Promise<T>;
  /** PUT: an optimistic update (the body's metadata.resourceVersion must be current, else Conflict). */
  update<T>(path: string, body: T, opts?: RequestOptions): Promise<T>;
  patch<T>(path: string, patch: unknown, type: PatchType, opts?: RequestOptions): Promise<T>;
  /**
   * A patch whose answer is read for the object's new resourceVersion only, asked for as the
   * object's metadata alone in the protobuf encoding (a third of the JSON bytes, without the
   * spec): for writes repeated at rest (the Lease).
   */
  patchResourceVersion(path: string, patch: unknown, type: PatchType, opts?: RequestOptions): Promise<string>;
  delete(path: string, opts?: DeleteOptions): Promise<Status>;
  /** Events until the server ends the watch; an ERROR event is thrown as an ApiError (410 = relist). */
  watch<T>(path: string, opts?: WatchOptions): AsyncIterable<WatchEvent<T>>;
}

export interface ApiClientOptions {
  clock?: Clock;
  /** Closes the client: every request in flight and every later one aborts. */
  signal?: AbortSignal;
  /** Requests per second; <= 0 turns the limiter off. Default 5 (client-go). */
  qps?: number;
  burst?: number;
  /** Deadline of each request but watches (headers and body); 0 = none; unset = 45 s. */
  timeoutMs?: number;
  userAgent?: string;
  /**
   * Requests (not watches) over HTTP/2 (one connection, HPACK-compressed headers) instead of
   * fetch's HTTP/1.1: what repeats at rest (Lease renewals, volume refreshes) then costs its few
   * changing header bytes. Watches stay one HTTP/1.1 response each: a bookmark a minute gains
   * nothing from HPACK. Only where the server is https (node:http2 speaks it over TLS); an http
   * server stays on fetch.
   */
  http2?: boolean;
  /** Runs exec credential plugins (tests). */
  exec?: ExecRunner;
  env?: Record<string, string | undefined>;
  /** Each attempt's outcome, as client-go's rest_client metrics see it: the method, the server's host:port, the status code ("<error>" when there was no answer), the seconds to the answer's headers. */
  onRequest?: (r: { method: string; host: string; code: string; seconds: number }) => void;
}

/** One request as the client sends it. */
export interface Call {
  verb: string;
  path: string;
  query?: Query;
  body?: string;
  contentType?: string;
  /** The Accept header; JSON unless given. */
  accept?: string;
  /** A watch: an answer that streams for minutes. */
  stream?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** A 2xx answer and what releases its deadline. */
export interface Sent {
  res: Response;
  release: () => void;
  /** True when the request's deadline passed (the body then breaks off). */
  timedOut: () => boolean;
  timeoutMs: number;
  /** Ends the request now (its body breaks off), as its deadline would. */
  abort: () => void;
}
