/**
 * New stored records with their fields inside the object.
 *
 * A record built by adding its keys one by one (`{id, ...fields}`, or `{}`
 * then `out[k] = v`) gets room for four fields in the object and keeps the
 * rest in a separate property array: a second object, with its own header
 * and spare slots. JSON.parse sizes an object for exactly the keys it
 * reads, and objects parsed with the same keys share one hidden class, frozen
 * or not. So a record is made by parsing a template of its keys (kept per
 * key list) and then filled in: tens of bytes less per record, for the time
 * of one small JSON.parse per write (docs/benchmarks.md, memory).
 *
 * (A copy of a template, `{...template}`, would be smaller still, but V8
 * gives each such copy a hidden class of its own once it is frozen.)
 */
import type { Value } from './tagged.js';

/**
 * Keys remembered across all lists (tree nodes, a few hundred bytes each);
 * a list that would pass this starts the tree over. A longer list than this
 * gets no template.
 */
const MAX_NODES = 16_384;

/**
 * Remembered key lists as a tree, one level per key: finding a list walks
 * its keys (most are the body's, whose hashes V8 already holds) instead of
 * joining them into a new string to look up, which would cost more than
 * making the record and leave the joined text as garbage.
 */
interface KeyNode {
  readonly next: Map<string, KeyNode>;
  /** The template of the list ending here. */
  text?: string;
}

let root: KeyNode = { next: new Map() };
let nodes = 0;

/**
 * A new plain object with `keys`, in this order, each null; undefined for
 * a key list it cannot template (one holding `__proto__`, which filling in
 * would take for the prototype's setter, or longer than MAX_NODES).
 */
export function recordObject(keys: readonly string[]): Record<string, Value> | undefined {
  let node: KeyNode | undefined = root;
  for (let i = 0; i < keys.length && node; i++) node = node.next.get(keys[i]!);
  const text = node?.text ?? remember(keys);
  return text === undefined ? undefined : (JSON.parse(text) as Record<string, Value>);
}

/** Adds the template of `keys`; undefined for a list it refuses. */
function remember(keys: readonly string[]): string | undefined {
  if (keys.length > MAX_NODES || keys.includes('__proto__')) return undefined;
  if (nodes + keys.length > MAX_NODES) {
    root = { next: new Map() };
    nodes = 0;
  }
  let node = root;
  for (const key of keys) {
    let child = node.next.get(key);
    if (!child) {
      node.next.set(key, (child = { next: new Map() }));
      nodes++;
    }
    node = child;
  }
  node.text = `{${keys.map((k) => `${JSON.stringify(k)}:null`).join(',')}}`;
  return node.text;
}
