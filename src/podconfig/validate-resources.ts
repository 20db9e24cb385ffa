/**
 * The apiserver's rules for container resources (validateResourceRequirements, resource names,
 * ValidateResourceQuantityValue) and for resourceFieldRef in the environment
 * (validateContainerResourceFieldSelector with its divisors), in its wording. Quantities are
 * already canonical strings here: decoding parsed them.
 */
import { Quantity, QuantityError, type ResourceRequirements } from "../api/index.ts";
import { fieldErrors as fe, type FieldError } from "./errors.ts";
import { isQualifiedName } from "./names.ts";

const containerResources = new Set(["cpu", "memory", "ephemeral-storage"]);
const integerResources = new Set([
  "pods", "quota", "services", "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims",
  "services.nodeports", "services.loadbalancers",
]);
const standardResources = new Set([
  "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
  "limits.cpu", "limits.memory", "limits.ephemeral-storage", "storage", "requests.storage", ...integerResources,
]);

const isHugePages = (name: string) => name.startsWith("hugepages-");
const isNative = (name: string) => !name.includes("/") || name.includes("kubernetes.io/");
const isExtended = (name: string) => !isNative(name) && !name.startsWith("requests.") && isQualifiedName(`requests.${name}`).length === 0;
const isOvercommitAllowed = (name: string) => isNative(name) && !isHugePages(name);
const isInteger = (name: string) => integerResources.has(name) || isExtended(name);

/** ValidateContainerResourceName. */
function checkResourceName(name: string, path: string, errs: FieldError[]): void {
  const qualified = isQualifiedName(name);
  for (const msg of qualified) errs.push(fe.invalid(path, name, msg));
  if (qualified.length > 0) return;
  if (!name.includes("/")) {
    if (!standardResources.has(name) && !isHugePages(name) && !name.startsWith("requests.hugepages-")) {
      errs.push(fe.invalid(path, name, "must be a standard resource type or fully qualified"));
    }
    if (!containerResources.has(name) && !isHugePages(name)) errs.push(fe.invalid(path, name, "must be a standard resource for containers"));
  } else if (!isNative(name) && !isExtended(name)) {
    errs.push(fe.invalid(path, name, "doesn't follow extended resource name standard"));
  }
}

/** ValidateResourceQuantityValue and the hugepage page-size rule. */
function checkQuantity(name: string, q: Quantity, path: string, errs: FieldError[]): void {
  if (q.sign() < 0) errs.push(fe.invalid(path, q.toString(), "must be greater than or equal to 0"));
  if (isInteger(name) && q.milliValue() % 1000n !== 0n) errs.push(fe.invalid(path, q.toString(), "must be an integer"));
  if (isHugePages(name) && !hugePagesDivisible(name, q)) {
    errs.push(fe.invalid(path, q.toString(), `${q} is not positive integer multiple of ${name}`));
  }
}

function hugePagesDivisible(name: string, q: Quantity): boolean {
  let page: Quantity;
  try {
    page = Quantity.parse(name.slice("hugepages-".length));
  } catch (err) {
    if (err instanceof QuantityError) return false; // no page size: not a hugepage name Go knows
    throw err;
  }
  if (page.sign() <= 0 || page.milliValue() % 1000n !== 0n) return false;
  return q.value() % page.value() === 0n;
}

/** validateResourceRequirements for a container at `path` ("spec.containers[0].resources"). */
export function validateResourceRequirements(resources: ResourceRequirements | undefined, path: string, errs: FieldError[]): void {
  const limits = resources?.limits ?? {};
  const requests = resources?.requests ?? {};
  let cpuOrMemory = false;
  let hugePages = false;
  for (const [name, value] of Object.entries(limits)) {
    const at = `${path}.limits[${name}]`;
    checkResourceName(name, at, errs);
    checkQuantity(name, Quantity.fromJSON(value), at, errs);
    cpuOrMemory ||= name === "cpu" || name === "memory";
    hugePages ||= isHugePages(name);
  }
  for (const [name, value] of Object.entries(requests)) {
    const at = `${path}.requests[${name}]`;
    checkResourceName(name, at, errs);
    const request = Quantity.fromJSON(value);
    checkQuantity(name, request, at, errs);
    if (Object.hasOwn(limits, name)) {
      const limit = Quantity.fromJSON(limits[name]);
      if (!isOvercommitAllowed(name) && request.cmp(limit) !== 0) {
        errs.push(fe.invalid(`${path}.requests`, request.toString(), `must be equal to ${name} limit of ${limit}`));
      } else if (request.cmp(limit) > 0) {
        errs.push(fe.invalid(`${path}.requests`, request.toString(), `must be less than or equal to ${name} limit of ${limit}`));
      }
    } else if (!isOvercommitAllowed(name)) {
      errs.push(fe.required(`${path}.limits`, "Limit must be set for non overcommitable resources"));
    }
    cpuOrMemory ||= name === "cpu" || name === "memory";
    hugePages ||= isHugePages(name);
  }
  if (hugePages && !cpuOrMemory) errs.push(fe.forbidden(path, "HugePages require cpu or memory"));
}

const fieldPathExpressions = [
  "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory",
];
const byteDivisors = ["1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"];

/** The divisors each resource of the downward API allows, and its name in the message. */
function divisorRule(resource: string): { kind: string; divisors: string[] } | undefined {
  const name = resource.replace(/^(limits|requests)\./, "");
  if (name === resource) return undefined;
  if (name === "cpu") return { kind: "cpu", divisors: ["1m", "1"] };
  if (name === "memory") return { kind: "memory", divisors: byteDivisors };
  if (name === "ephemeral-storage") return { kind: "local ephemeral storage", divisors: byteDivisors };
  if (isHugePages(name)) return { kind: "hugepages", divisors: byteDivisors };
  return undefined;
}

/** validateContainerResourceFieldSelector for an env var's resourceFieldRef at `path`. */
export function validateResourceFieldRef(ref: { resource?: string; divisor?: string }, path: string, errs: FieldError[]): void {
  const resource = ref.resource ?? "";
  if (resource === "") errs.push(fe.required(`${path}.resource`));
  else if (!fieldPathExpressions.includes(resource) && !/^(requests|limits)\.hugepages-/.test(resource)) {
    errs.push(fe.notSupported(`${path}.resource`, resource, fieldPathExpressions));
  }
  const divisor = ref.divisor === undefined ? Quantity.zero : Quantity.fromJSON(ref.divisor);
  const rule = divisorRule(resource);
  if (divisor.isZero() || !rule || rule.divisors.includes(divisor.toString())) return;
  const allowed = rule.kind === "cpu" ? "1m and 1" : rule.divisors.join(", ");
  errs.push(fe.invalid(`${path}.divisor`, resource, `only divisor's values ${allowed} are supported with the ${rule.kind} resource`));
}
