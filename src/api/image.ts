/**
 * Image references as the kubelet reads them (pkg/util/parsers ParseImageName over
 * distribution/reference ParseNormalizedNamed): one parser for API defaulting (the pull policy)
 * and for the image manager (InvalidImageName, the default :latest tag).
 */

const alphanumeric = "[a-z0-9]+";
const separator = "(?:[._]|__|[-]+)";
const pathComponent = `${alphanumeric}(?:${separator}${alphanumeric})*`;
const remoteName = `${pathComponent}(?:/${pathComponent})*`;
const domainNameComponent = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const host = `(?:${domainNameComponent}(?:\\.${domainNameComponent})*|\\[(?:[a-fA-F0-9:]+)\\])`;
const domainAndPort = `${host}(?::[0-9]+)?`;
const tag = "[\\w][\\w.-]{0,127}";
const digest = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}";

const referenceRE = new RegExp(`^((?:${domainAndPort}/)?${remoteName})(?::(${tag}))?(?:@(${digest}))?$`);
const nameRE = new RegExp(`^(?:(${domainAndPort})/)?(${remoteName})$`);
const identifierRE = /^[a-f0-9]{64}$/;
/** The digest algorithms the kubelet links in (crypto/sha256, crypto/sha512), with their hex length. */
const digestHexLength: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
const maxRepositoryPath = 255;

export interface ImageName {
  /** Normalized: "busybox" is "docker.io/library/busybox". */
  repository: string;
  /** "latest" when the reference has neither tag nor digest. */
  tag: string;
  digest: string;
}

/** splitDockerDomain: Docker Hub for names without a registry, library/ for official images. */
function splitDockerDomain(name: string): [string, string] {
  const slash = name.indexOf("/");
  let [domain, remainder] = slash < 0 ? ["docker.io", name] : [name.slice(0, slash), name.slice(slash + 1)];
  if (slash >= 0 && domain === "index.docker.io") domain = "docker.io";
  else if (slash >= 0 && domain !== "localhost" && !/[.:]/.test(domain) && domain.toLowerCase() === domain) {
    [domain, remainder] = ["docker.io", name];
  }
  if (domain === "docker.io" && !remainder.includes("/")) remainder = `library/${remainder}`;
  return [domain, remainder];
}

/** A reference the kubelet cannot parse, with distribution/reference's reason. */
export class ImageNameError extends Error {
  constructor(
    readonly image: string,
    reason: string,
  ) {
    super(`couldn't parse image name ${JSON.stringify(image)}: ${reason}`);
    this.name = "ImageNameError";
  }
}

/** go-digest's Digest.Validate; the reason when the digest is not one the kubelet accepts. */
function digestError(text: string): string | undefined {
  const colon = text.indexOf(":");
  const length = digestHexLength[text.slice(0, colon)];
  if (length === undefined) {
    return /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/.test(text) ? "unsupported digest algorithm" : "invalid checksum digest format";
  }
  const hex = text.slice(colon + 1);
  if (hex.length !== length) return "invalid checksum digest length";
  return /^[a-f0-9]+$/.test(hex) ? undefined : "invalid checksum digest format";
}

/** ParseImageName; throws ImageNameError for a reference the kubelet cannot parse. */
export function parseImageName(image: string): ImageName {
  const fail = (reason: string): never => {
    throw new ImageNameError(image, reason);
  };
  if (identifierRE.test(image)) fail(`invalid repository name (${image}), cannot specify 64-byte hexadecimal strings`);
  const [domain, remainder] = splitDockerDomain(image);
  const colon = remainder.indexOf(":");
  const remote = colon < 0 ? remainder : remainder.slice(0, colon);
  if (remote.toLowerCase() !== remote) fail(`invalid reference format: repository name (${remote}) must be lowercase`);
  const full = `${domain}/${remainder}`;
  const m = referenceRE.exec(full) ?? fail(referenceRE.test(full.toLowerCase()) ? "invalid reference format: repository name must be lowercase" : "invalid reference format");
  const name = nameRE.exec(m[1])!;
  if (name[2].length > maxRepositoryPath) fail(`repository name must not be more than ${maxRepositoryPath} characters`);
  const digest = m[3] ?? "";
  const bad = digest === "" ? undefined : digestError(digest);
  if (bad) fail(bad);
  const tag = m[2] ?? "";
  return { repository: `${name[1]}/${name[2]}`, tag: tag === "" && digest === "" ? "latest" : tag, digest };
}

/** The API default (SetDefaults_Container): Always for the latest tag, IfNotPresent otherwise. */
export function defaultImagePullPolicy(image: string): "Always" | "IfNotPresent" {
  try {
    return parseImageName(image).tag === "latest" ? "Always" : "IfNotPresent";
  } catch (err) {
    // An invalid reference has no tag; the image manager reports it as InvalidImageName.
    if (err instanceof ImageNameError) return "IfNotPresent";
    throw err;
  }
}
