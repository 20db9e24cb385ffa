/**
 * Manifest decoding, the kubelet's tryDecodeSinglePod / tryDecodePodList (pkg/kubelet/config
 * common.go): YAML or JSON read as sigs.k8s.io/yaml reads it (YAML 1.1 scalars; one Pod per
 * manifest, a multi-document YAML yields its first document), at most 10 MiB, typed,
 * API-defaulted, given the static-pod identity, validated, and refused when it references API
 * objects. Everything wrong is one ManifestError naming the source and the field.
 */
import type { Pod } from "../api/index.ts";
import { readYaml, YamlError } from "../lib/index.ts";
import { fieldErrors as fe, ManifestError, type FieldError } from "./errors.ts";
import { applyApiDefaults } from "./defaults.ts";
import { findAPIObjectReference } from "./references.ts";
import { checkPodTypes } from "./schema.ts";
import { applyStaticPodDefaults, type StaticPodOrigin } from "./static.ts";
import { validatePod } from "./validate-pod.ts";

/** The kubelet's maxConfigLength: manifests larger than this are refused. */
export const maxConfigLength = 10 * 1024 * 1024;

export type DecodeOptions = StaticPodOrigin;

function fail(source: string, ...errs: FieldError[]): never {
  throw new ManifestError(source, errs);
}

function byteLength(data: Uint8Array | string): number {
  return typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
}

/** Parses the first YAML (or JSON) document into a plain object with apiVersion v1. */
function parseObject(data: Uint8Array | string, source: string): Record<string, unknown> {
  const size = byteLength(data);
  if (size > maxConfigLength) {
    fail(source, { code: "TooLarge", field: "", detail: `manifest is ${size} bytes, more than the limit of ${maxConfigLength}` });
  }
  let value: unknown;
  try {
    value = readYaml(data);
  } catch (err) {
    if (!(err instanceof YamlError)) throw err;
    const detail = err.path === "" ? `cannot parse as YAML or JSON: ${err.message}` : err.message;
    fail(source, { code: "Syntax", field: err.path, detail });
  }
  if (value === null || value === undefined) fail(source, { code: "Syntax", field: "", detail: "manifest is empty" });
  if (typeof value !== "object" || Array.isArray(value)) fail(source, fe.typeInvalid("", value, "an object"));
  const obj = value as Record<string, unknown>;
  if (obj.apiVersion === undefined || obj.apiVersion === "") fail(source, fe.required("apiVersion"));
  if (obj.apiVersion !== "v1") fail(source, fe.notSupported("apiVersion", obj.apiVersion, ["v1"]));
  return obj;
}

function prefixed(prefix: string, errs: FieldError[]): FieldError[] {
  return prefix === "" ? errs : errs.map((e) => ({ ...e, field: e.field === "" ? prefix : `${prefix}.${e.field}` }));
}

/** Types, defaults, identifies and validates one decoded Pod object. */
function decodePod(obj: Record<string, unknown>, prefix: string, origin: StaticPodOrigin): Pod {
  // A value of the wrong type stops here; a malformed quantity is dropped and reported with
  // everything validation finds.
  const typeErrs = checkPodTypes(obj, prefix);
  if (typeErrs.some((e) => e.code === "TypeInvalid")) fail(origin.source, ...typeErrs);
  // The decoder hands the kubelet an object without its type header: a pod served alone or in a
  // PodList hashes to the same UID.
  delete obj.apiVersion;
  delete obj.kind;
  obj.metadata ??= {};
  obj.spec ??= {};
  const pod = obj as unknown as Pod;
  if (!pod.metadata.name) fail(origin.source, ...typeErrs, ...prefixed(prefix, [fe.required("metadata.name", "a static pod needs a name")]));
  applyApiDefaults(pod);
  applyStaticPodDefaults(pod, origin);
  const errs = [...typeErrs, ...prefixed(prefix, validatePod(pod))];
  const reference = findAPIObjectReference(pod);
  if (reference) errs.push(...prefixed(prefix, [reference]));
  if (errs.length > 0) fail(origin.source, ...errs);
  return pod;
}

/** Decodes a manifest that must hold exactly one Pod (the file source; throws ManifestError). */
export function decodeManifest(data: Uint8Array | string, origin: DecodeOptions): Pod {
  const obj = parseObject(data, origin.source);
  if (obj.kind === undefined || obj.kind === "") fail(origin.source, fe.required("kind"));
  if (obj.kind !== "Pod") fail(origin.source, fe.notSupported("kind", obj.kind, ["Pod"]));
  return decodePod(obj, "", origin);
}

/**
 * Decodes a Pod or a PodList (the HTTP source). One invalid item rejects the whole list, as the
 * kubelet does.
 */
export function decodeManifestList(data: Uint8Array | string, origin: DecodeOptions): Pod[] {
  const obj = parseObject(data, origin.source);
  if (obj.kind === "Pod") return [decodePod(obj, "", origin)];
  if (obj.kind === undefined || obj.kind === "") fail(origin.source, fe.required("kind"));
  if (obj.kind !== "PodList") fail(origin.source, fe.notSupported("kind", obj.kind, ["Pod", "PodList"]));
  const items = obj.items ?? [];
  if (!Array.isArray(items)) fail(origin.source, fe.typeInvalid("items", items, "an array"));
  return items.map((item, i) => {
    const path = `items[${i}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) fail(origin.source, fe.typeInvalid(path, item, "an object"));
    return decodePod(item as Record<string, unknown>, path, origin);
  });
}
