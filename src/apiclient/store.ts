/**
 * The store a reflector fills: objects keyed by `namespace/name` (client-go's
 * MetaNamespaceKeyFunc). `onChange` gets the whole set after every change, as client-go's
 * UndeltaStore pushes it; the kubelet's apiserver pod source sends exactly that as its snapshot.
 */
/** What the store and the reflector read of an object: its key and its resourceVersion. */
export interface KubeObject {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
}

export interface ReflectorStore<T> {
  /** The full set after a (re)list, and the list's resourceVersion. */
  replace(items: T[], resourceVersion: string): void;
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T): void;
}

function objectKey(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? "";
  return ns ? `${ns}/${name}` : name;
}

export class ObjectStore<T extends KubeObject> implements ReflectorStore<T> {
  readonly #items = new Map<string, T>();
  readonly #onChange?: (items: T[]) => void;

  constructor(opts: { onChange?: (items: T[]) => void } = {}) {
    this.#onChange = opts.onChange;
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  replace(items: T[]): void {
    this.#items.clear();
    for (const obj of items) this.#items.set(objectKey(obj), obj);
    this.#changed();
  }

  add(obj: T): void {
    this.#items.set(objectKey(obj), obj);
    this.#changed();
  }

  update(obj: T): void {
    this.add(obj);
  }

  delete(obj: T): void {
    this.#items.delete(objectKey(obj));
    this.#changed();
  }

  #changed(): void {
    this.#onChange?.(this.list());
  }
}
