/**
 * $(VAR) expansion in command, args and env values, with the kubelet's rules
 * (third_party/forked/golang/expansion): `$$` is an escaped `$`, an unknown or incomplete
 * reference is left as written, and anything else after `$` is kept literally.
 */
export type Mapping = (name: string) => string;

/** Looks names up in the given maps in order; an unknown name stays `$(name)`. */
export function mappingFor(...contexts: ReadonlyMap<string, string>[]): Mapping {
  return (name) => {
    for (const vars of contexts) {
      const v = vars.get(name);
      if (v !== undefined) return v;
    }
    return `$(${name})`;
  };
}

export function expand(input: string, mapping: Mapping): string {
  let out = "";
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== "$" || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const rest = input.slice(cursor + 1);
    if (rest[0] === "$") {
      out += "$";
      cursor += 1;
    } else if (rest[0] === "(") {
      const close = rest.indexOf(")", 1);
      if (close >= 0) {
        out += mapping(rest.slice(1, close));
        cursor += close + 1;
      } else {
        out += "$(";
        cursor += 1;
      }
    } else {
      out += `$${rest[0]}`;
      cursor += 1;
    }
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}
