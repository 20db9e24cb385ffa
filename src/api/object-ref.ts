/**
 * An object named in a log line, as klog.KObj writes it: `pod="ns/name"` in klog's text format
 * (the namespace is left out when empty), `"pod":{"name":"…","namespace":"…"}` in
 * component-base's JSON (namespace omitted when empty), and `[ns/a ns/b]` inside a list, as
 * klog.KObjSlice writes one. The log formatters need no knowledge of it: text uses toString
 * (Go's fmt.Stringer), JSON uses toJSON (Go's logr.Marshaler).
 */
export class ObjectRef {
  constructor(
    readonly name: string,
    readonly namespace: string,
  ) {}

  toString(): string {
    return this.namespace === "" ? this.name : `${this.namespace}/${this.name}`;
  }

  toJSON(): { name: string; namespace?: string } {
    return this.namespace === "" ? { name: this.name } : { name: this.name, namespace: this.namespace };
  }
}

/** klog.KObj of anything with a name and a namespace. */
export function kObj(meta: { name?: string; namespace?: string }): ObjectRef {
  return new ObjectRef(meta.name ?? "", meta.namespace ?? "");
}
