/**
 * The kubelet's pull-secret keyring (pkg/credentialprovider keyring.go, config.go and
 * secrets/secrets.go): a pod's `kubernetes.io/dockerconfigjson` and `kubernetes.io/dockercfg`
 * Secrets become registry entries keyed `host[:port][/path]`; an image gets the credentials of
 * every entry whose key matches its repository (host parts matched one by one as globs, same
 * port, path prefix), longest keys first, or, for a Docker Hub image, those of `index.docker.io`.
 * Pure: the Secrets are fetched by the caller. Credentials are never put in an error message.
 */
import type { Secret } from "../api/index.ts";

/** What PullImage gets as its CRI AuthConfig (the keyring fills the user name and password only). */
export interface RegistryAuth {
  username: string;
  password: string;
}

export class PullSecretError extends Error {}

const DEFAULT_REGISTRY_HOST = "index.docker.io";

/** A parsed schemeless URL, as url.Parse("https://" + s) sees its host and path. */
function parseSchemeless(s: string): { host: string; path: string } {
  const rest = s.replace(/^https?:\/\//, "");
  const end = rest.search(/[?#]/);
  const hostAndPath = end < 0 ? rest : rest.slice(0, end);
  const slash = hostAndPath.indexOf("/");
  return slash < 0 ? { host: hostAndPath, path: "" } : { host: hostAndPath.slice(0, slash), path: hostAndPath.slice(slash) };
}

/** SplitURL: the host's dot-separated parts and its port ("" when net.SplitHostPort fails). */
function splitHost(host: string): { parts: string[]; port: string } {
  let name = host;
  let port = "";
  const bracketed = /^\[([^\]]*)\]:([^:]*)$/.exec(host);
  if (bracketed) [name, port] = [bracketed[1]!, bracketed[2]!];
  else if (!host.startsWith("[") && host.split(":").length === 2) [name, port] = host.split(":") as [string, string];
  return { parts: name.split("."), port };
}

/** filepath.Match for one host part: `*`, `?` and `[...]` classes (`^` negates); a bad pattern matches nothing. */
function globMatch(pattern: string, value: string): boolean {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else if (c === "[") {
      const close = pattern.indexOf("]", i + 2);
      if (close < 0) return false;
      const body = pattern.slice(i + 1, close);
      re += body.startsWith("^") ? `[^${body.slice(1).replace(/\\/g, "\\\\")}]` : `[${body.replace(/\\/g, "\\\\")}]`;
      i = close;
    } else if (c === "\\") {
      const next = pattern[++i];
      if (next === undefined) return false;
      re += next.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  try {
    return new RegExp(`^${re}$`).test(value);
  } catch {
    return false;
  }
}

/** URLsMatchStr: same port, as many host parts each matching its glob, and the key's path a prefix of the image's. */
export function urlsMatch(glob: string, target: string): boolean {
  const g = parseSchemeless(glob);
  const t = parseSchemeless(target);
  const gh = splitHost(g.host);
  const th = splitHost(t.host);
  if (gh.port !== th.port || gh.parts.length !== th.parts.length) return false;
  if (!t.path.startsWith(g.path)) return false;
  return gh.parts.every((p, i) => globMatch(p, th.parts[i]!));
}

/** isDefaultRegistryMatch: an image with no registry host, or docker.io / index.docker.io. */
function isDefaultRegistryMatch(image: string): boolean {
  const slash = image.indexOf("/");
  const first = slash < 0 ? image : image.slice(0, slash);
  if (first === "") return false;
  if (slash < 0) return true;
  if (first === "docker.io" || first === "index.docker.io") return true;
  return !/[.:]/.test(first);
}

function base64Decode(field: string, padded: boolean): string | undefined {
  const ok = padded ? /^[A-Za-z0-9+/]*={0,2}$/.test(field) && field.length % 4 === 0 : /^[A-Za-z0-9+/]*$/.test(field) && field.length % 4 !== 1;
  return ok ? Buffer.from(field, "base64").toString("utf8") : undefined;
}

/** A config entry's field, matched without case as Go's encoding/json does. */
function field(entry: Record<string, unknown>, name: string): string {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : entry[key];
  return typeof v === "string" ? v : "";
}

/** DockerConfigEntry.UnmarshalJSON: username and password, or `auth` = base64("user:password") over them. */
function entryAuth(registry: string, raw: unknown): RegistryAuth {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new PullSecretError(`the entry for ${JSON.stringify(registry)} is not an object`);
  const entry = raw as Record<string, unknown>;
  const auth = field(entry, "auth");
  if (auth === "") return { username: field(entry, "username"), password: field(entry, "password") };
  const decoded = base64Decode(auth, auth.trim().endsWith("="));
  if (decoded === undefined) throw new PullSecretError(`the auth field of ${JSON.stringify(registry)} is not base64`);
  const colon = decoded.indexOf(":");
  if (colon < 0) throw new PullSecretError("unable to parse auth field, must be formatted as base64(username:password)");
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** BasicDockerKeyring.Add's key: the host and the path without a /v1/ or /v2/ prefix (none for "/"). */
function registryKey(registry: string): string {
  const { host, path } = parseSchemeless(registry);
  const effective = path.startsWith("/v2/") || path.startsWith("/v1/") ? path.slice(3) : path;
  return effective !== "" && effective !== "/" ? host + effective : host;
}

function parseJSONObject(text: string, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new PullSecretError(`${what} is not valid JSON`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new PullSecretError(`${what} is not a JSON object`);
  return parsed as Record<string, unknown>;
}

/** The registry entries of one Secret (none unless it is a docker config Secret with its key). */
function secretEntries(secret: Secret): [string, unknown][] {
  const ref = `secret ${secret.metadata.namespace ?? ""}/${secret.metadata.name ?? ""}`;
  const data = (key: string) => {
    const b64 = secret.data?.[key];
    return b64 ? Buffer.from(b64, "base64").toString("utf8") : "";
  };
  if (secret.type === "kubernetes.io/dockerconfigjson" && data(".dockerconfigjson") !== "") {
    const config = parseJSONObject(data(".dockerconfigjson"), `${ref}: .dockerconfigjson`);
    const auths = config[Object.keys(config).find((k) => k.toLowerCase() === "auths") ?? "auths"] ?? {};
    if (typeof auths !== "object" || auths === null || Array.isArray(auths)) throw new PullSecretError(`${ref}: .dockerconfigjson's auths is not an object`);
    return Object.entries(auths);
  }
  if (secret.type === "kubernetes.io/dockercfg" && data(".dockercfg") !== "") {
    return Object.entries(parseJSONObject(data(".dockercfg"), `${ref}: .dockercfg`));
  }
  return [];
}

export interface DockerKeyring {
  /** The credentials to try for a repository (`registry.example.com/team/app`), in order; [] = pull anonymously. */
  lookup(repository: string): RegistryAuth[];
}

/** MakeDockerKeyring over the pod's pull secrets (in the pod's order). Throws PullSecretError for a malformed one. */
export function keyringFromSecrets(secrets: Secret[]): DockerKeyring {
  const creds = new Map<string, RegistryAuth[]>();
  for (const secret of secrets) {
    for (const [registry, entry] of secretEntries(secret)) {
      const key = registryKey(registry);
      creds.set(key, [...(creds.get(key) ?? []), entryAuth(registry, entry)]);
    }
  }
  // Longest (most specific) keys first: the index sorted in reverse.
  const index = [...creds.keys()].sort().reverse();
  return {
    lookup(repository) {
      const found = index.filter((k) => urlsMatch(k, repository)).flatMap((k) => creds.get(k)!);
      if (found.length > 0) return found;
      if (isDefaultRegistryMatch(repository)) return creds.get(DEFAULT_REGISTRY_HOST) ?? [];
      return [];
    },
  };
}
