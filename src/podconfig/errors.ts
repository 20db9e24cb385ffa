/**
 * The one error type of the pod-config boundary. A manifest that cannot be read, parsed, typed,
 * defaulted or validated becomes a ManifestError that names its source (file path or URL) and the
 * field path, in the apiserver's wording ("spec.containers[0].image: Required value"), so an
 * operator can fix the file without reading bunlet's code. Callers branch on `code`, never on
 * the message.
 */

/** What went wrong: the apiserver's field.ErrorType values, plus reading/parsing failures. */
export type ManifestErrorCode =
  | "Unreadable"
  | "TooLarge"
  | "Syntax"
  | "TypeInvalid"
  | "Required"
  | "Invalid"
  | "NotSupported"
  | "Duplicate"
  | "NotFound"
  | "Forbidden"
  | "TooLong"
  | "TooMany";

/** One problem at one field path ("" when it concerns the whole manifest). */
export interface FieldError {
  code: ManifestErrorCode;
  field: string;
  detail: string;
}

function describe(e: FieldError): string {
  return e.field === "" ? e.detail : `${e.field}: ${e.detail}`;
}

export class ManifestError extends Error {
  readonly source: string;
  readonly code: ManifestErrorCode;
  readonly field: string;
  readonly detail: string;
  /** Every problem found, the first being the one in code/field/detail. */
  readonly causes: readonly FieldError[];

  constructor(source: string, causes: FieldError[]) {
    if (causes.length === 0) throw new RangeError("ManifestError needs at least one cause");
    super(`${source}: ${causes.map(describe).join("; ")}`);
    this.name = "ManifestError";
    this.source = source;
    this.causes = causes;
    this.code = causes[0].code;
    this.field = causes[0].field;
    this.detail = causes[0].detail;
  }

  /** The same problems attributed to another source (a PodList item, a renamed file). */
  withSource(source: string): ManifestError {
    return new ManifestError(source, [...this.causes]);
  }
}

/** Renders a value the way the apiserver quotes it in "Invalid value: ..." details. */
function quote(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

export const fieldErrors = {
  required: (field: string, why = ""): FieldError => ({
    code: "Required",
    field,
    detail: why ? `Required value: ${why}` : "Required value",
  }),
  invalid: (field: string, value: unknown, why: string): FieldError => ({
    code: "Invalid",
    field,
    detail: `Invalid value: ${quote(value)}: ${why}`,
  }),
  notSupported: (field: string, value: unknown, supported: readonly string[]): FieldError => ({
    code: "NotSupported",
    field,
    detail: `Unsupported value: ${quote(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(", ")}`,
  }),
  duplicate: (field: string, value: unknown): FieldError => ({
    code: "Duplicate",
    field,
    detail: `Duplicate value: ${quote(value)}`,
  }),
  notFound: (field: string, value: unknown): FieldError => ({
    code: "NotFound",
    field,
    detail: `Not found: ${quote(value)}`,
  }),
  forbidden: (field: string, why: string): FieldError => ({
    code: "Forbidden",
    field,
    detail: `Forbidden: ${why}`,
  }),
  tooLong: (field: string, max: number): FieldError => ({
    code: "TooLong",
    field,
    detail: `Too long: may not be more than ${max} bytes`,
  }),
  tooMany: (field: string, actual: number, max: number): FieldError => ({
    code: "TooMany",
    field,
    detail: `Too many: ${actual}: must have at most ${max} items`,
  }),
  typeInvalid: (field: string, value: unknown, expected: string): FieldError => ({
    code: "TypeInvalid",
    field,
    detail: `Invalid value: ${typeName(value)}: must be ${expected}`,
  }),
};

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
