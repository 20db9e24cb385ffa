/**
 * The files of configMap, secret, downwardAPI and projected volumes (configmap.MakePayload,
 * secret.MakePayload, downwardapi.CollectData, projected collectData): every key with the
 * default mode, or only the listed items with their own mode; a listed key that is missing fails
 * unless the source is optional. Secret data arrives base64-encoded, as on the wire. The
 * messages are the kubelet's; they become the FailedMount event's message.
 */
import type { ConfigMap, DownwardAPIVolumeFile, KeyToPath, Pod, Secret } from "../api/index.ts";
import { containerResourceValue, podFieldValue, type NodeFacts } from "../container/index.ts";
import type { Payload } from "./atomic-writer.ts";

/** The API's default for defaultMode (0644). */
export const DEFAULT_MODE = 0o644;

const enc = new TextEncoder();

function fromKeys(
  kind: "configmap" | "secret",
  items: KeyToPath[] | undefined,
  data: Map<string, Uint8Array>,
  defaultMode: number,
  optional: boolean,
): Payload {
  const payload: Payload = new Map();
  if (!items || items.length === 0) {
    for (const [key, bytes] of data) payload.set(key, { data: bytes, mode: defaultMode });
    return payload;
  }
  for (const item of items) {
    const bytes = data.get(item.key);
    if (bytes === undefined) {
      if (optional) continue;
      throw new Error(`${kind} references non-existent ${kind === "configmap" ? "config" : "secret"} key: ${item.key}`);
    }
    payload.set(item.path, { data: bytes, mode: item.mode ?? defaultMode });
  }
  return payload;
}

/** configmap.MakePayload: data and binaryData (base64) keys. */
export function configMapPayload(items: KeyToPath[] | undefined, cm: ConfigMap, defaultMode: number, optional: boolean): Payload {
  const data = new Map<string, Uint8Array>();
  for (const [k, v] of Object.entries(cm.data ?? {})) data.set(k, enc.encode(v));
  for (const [k, v] of Object.entries(cm.binaryData ?? {})) data.set(k, Buffer.from(v, "base64"));
  return fromKeys("configmap", items, data, defaultMode, optional);
}

/** secret.MakePayload. */
export function secretPayload(items: KeyToPath[] | undefined, secret: Secret, defaultMode: number, optional: boolean): Payload {
  const data = new Map<string, Uint8Array>();
  for (const [k, v] of Object.entries(secret.data ?? {})) data.set(k, Buffer.from(v, "base64"));
  return fromKeys("secret", items, data, defaultMode, optional);
}

/** The fieldPaths a downwardAPI volume file may name (fieldpath.ExtractFieldPathAsString). */
const volumeFieldPath = /^metadata\.(name|namespace|uid|labels|annotations)$|^metadata\.(labels|annotations)\['.+'\]$/;

/** downwardapi.CollectData: every item's value; the failures are joined into one error. */
export function downwardAPIPayload(items: DownwardAPIVolumeFile[] | undefined, pod: Pod, defaultMode: number, node: NodeFacts): Payload {
  const payload: Payload = new Map();
  const errors: string[] = [];
  for (const item of items ?? []) {
    let value = "";
    try {
      if (item.fieldRef) {
        if (!volumeFieldPath.test(item.fieldRef.fieldPath)) throw new Error(`unsupported fieldPath: ${item.fieldRef.fieldPath}`);
        value = podFieldValue(pod, item.fieldRef.fieldPath, node);
      } else if (item.resourceFieldRef) {
        value = containerResourceValue(pod, undefined, item.resourceFieldRef, node);
      }
    } catch (err) {
      errors.push(err instanceof Error ? err.message : String(err));
    }
    payload.set(item.path.replace(/\/+$/, ""), { data: enc.encode(value), mode: item.mode ?? defaultMode });
  }
  if (errors.length === 1) throw new Error(errors[0]);
  if (errors.length > 1) throw new Error(`[${errors.join(", ")}]`);
  return payload;
}
