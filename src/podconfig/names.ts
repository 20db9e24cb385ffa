/**
 * Name rules of the Kubernetes API (apimachinery util/validation), returning the apiserver's
 * explanations so errors read the same as `kubectl apply` would report them. Each returns the
 * list of reasons a value is wrong (empty when it is fine).
 */

const dns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123Label = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123Subdomain = new RegExp(`^${dns1123SubdomainFmt}$`);
const qualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const qualifiedName = new RegExp(`^${qualifiedNameFmt}$`);
const labelValue = new RegExp(`^(${qualifiedNameFmt})?$`);
const ianaSvcName = /^[-a-z0-9]+$/;

const DNS1123LabelMaxLength = 63;
const DNS1123SubdomainMaxLength = 253;

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123LabelMaxLength) errs.push(`must be no more than ${DNS1123LabelMaxLength} characters`);
  if (!dns1123Label.test(value)) {
    errs.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start " +
        `and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${dns1123LabelFmt}')`,
    );
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123SubdomainMaxLength) {
    errs.push(`must be no more than ${DNS1123SubdomainMaxLength} characters`);
  }
  if (!dns1123Subdomain.test(value)) {
    errs.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must " +
        `start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${dns1123SubdomainFmt}')`,
    );
  }
  return errs;
}

/** A label or annotation key: an optional DNS subdomain prefix and "/", then a name. */
export function isQualifiedName(value: string): string[] {
  const parts = value.split("/");
  let name = value;
  const errs: string[] = [];
  if (parts.length === 2) {
    const [prefix, rest] = parts;
    name = rest;
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else errs.push(...isDNS1123Subdomain(prefix).map((e) => `prefix part ${e}`));
  } else if (parts.length > 2) {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with " +
        "an alphanumeric character, with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (name.length > 63) errs.push("name part must be no more than 63 characters");
  if (name.length > 0 && !qualifiedName.test(name)) {
    errs.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an " +
        `alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${qualifiedNameFmt}')`,
    );
  }
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push("must be no more than 63 characters");
  if (!labelValue.test(value)) {
    errs.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must " +
        `start and end with an alphanumeric character (regex used for validation is '(${qualifiedNameFmt})?')`,
    );
  }
  return errs;
}

/** A port name (IANA_SVC_NAME): 1-15 characters, lowercase letters, digits and '-'. */
export function isValidPortName(value: string): string[] {
  const errs: string[] = [];
  if (value.length < 1 || value.length > 15) errs.push("must be no more than 15 characters");
  if (!ianaSvcName.test(value)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (/--/.test(value)) errs.push("must not contain consecutive hyphens");
  if (!/[a-z]/.test(value)) errs.push("must contain at least one letter (a-z)");
  if (value.startsWith("-") || value.endsWith("-")) errs.push("must not begin or end with a hyphen");
  return errs;
}

/** Environment variable names: printable ASCII except '=' (RelaxedEnvironmentVariableValidation). */
export function isEnvVarName(value: string): string[] {
  if (/^[\x20-\x7e]+$/.test(value) && !value.includes("=")) return [];
  return ["a valid environment variable name must consist only of printable ASCII characters other than '='"];
}
