/**
 * New stored records with their fields inside the object.
 *
 * A record built by adding its keys one by one (`{id, ...fields}`, or `{}`
 * then `out[k] = v`) gets room for four fields in the object and keeps the
 * rest in a separate property array: a second object, with its own header
 * and spare slots. An object literal is sized for exactly its keys, and
 * every object a literal makes shares one hidden class, frozen or not. So
 * the records of a key list that keeps coming are made by a literal of that
 * list, compiled once into a small function (`{"id":v[0],"name":v[1]}`),
 * then filled in: tens of bytes less per record than one built key by key,
 * for a few nanoseconds per field. The first few records of a list, before
 * it is compiled, are parsed from a JSON template of its keys, which V8 sizes
 * the same way, at the cost of one small JSON.parse each
 * (docs/benchmarks.md, memory).
 *
 * A new record from a request body (`id`, then the body's keys: the usual
 * insert) is made by a function compiled once per key list that converts
 * each value inside its literal (recordShapeOf): no key list to build, no
 * filling in; 2.4 against 11 ms for 10,000 records of 7 fields, the same
 * bytes per record. The last shape is checked first, by a walk of the body's
 * keys, since the bodies of a batch mostly share one.
 *
 * Where code generation is disallowed (`--disallow-code-generation-from-strings`),
 * the templates serve.
 *
 * (A copy of a template, `{...template}`, would be smaller still, but V8
 * gives each such copy a hidden class of its own once it is frozen.)
 */
import type { Value } from './tagged.js';
import { assertSafeKey, isSafeKey } from './wire/from-wire.js';

/** Converts a body's value of `key` to the stored value (fieldFromWire); throws for a value it refuses. */
export type ConvertField = (raw: unknown, key: string) => Value;

/** The key list of the records made from bodies of one shape: `id`, then the body's keys in order. */
export interface RecordShape {
  /** `id` first, then the body's own keys. */
  readonly keys: readonly string[];
  /**
   * Makes the record of `body` (which has exactly `keys` after `id`): `id`, then each
   * `convert(body[key], key)` in key order. Throws the first error in key order: a
   * forbidden field name (InvalidInput, assertSafeKey) or what `convert` throws. Not frozen.
   */
  make(body: Readonly<Record<string, unknown>>, id: string, convert: ConvertField): Record<string, Value>;
}

/**
 * Keys remembered across all lists (tree nodes, a few hundred bytes each);
 * a list that would pass this starts the tree over. A longer list than this
 * gets no template.
 */
const MAX_NODES = 16_384;
/** Compiled lists (a function of a few hundred bytes to a few KB each); more start the tree over. */
const MAX_COMPILED = 2_048;
/** A list is compiled once this many records were made of it: a list seen once costs no compilation. */
const COMPILE_AFTER = 4;
/** Longer lists are never compiled: V8 keeps at most a few hundred fields inside an object anyway. */
const MAX_COMPILED_KEYS = 128;

/** Makes a record of one key list from its values, in the list's order. */
type Maker = (values: readonly unknown[]) => Record<string, Value>;

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
  /** Records made of the list ending here, up to COMPILE_AFTER. */
  made: number;
  /** The compiled literal of the list ending here. */
  make?: Maker;
  /** The shape of bodies whose keys (after `id`) end here. */
  shape?: RecordShape;
}

let root: KeyNode = { next: new Map(), made: 0 };
let nodes = 0;
let compiled = 0;
/** The shape last asked for: the bodies of a batch mostly share one. */
let lastShape: RecordShape | undefined;
/** Cleared when the runtime refuses to compile code from strings. */
let canCompile = true;

/** An array of nulls at least `n` long: the values of a record about to be filled in. */
let nulls: readonly null[] = [];

/**
 * A new plain object with `keys`, in this order, each null; undefined for
 * a key list it cannot template (one holding `__proto__`, which filling in
 * would take for the prototype's setter, or longer than MAX_NODES).
 */
export function recordObject(keys: readonly string[]): Record<string, Value> | undefined {
  const node = find(keys, keys.length);
  if (node?.make) {
    if (nulls.length < keys.length) nulls = new Array<null>(keys.length).fill(null);
    return node.make(nulls);
  }
  const text = node ? noteMade(node, keys, keys.length) : remember(keys);
  return text === undefined ? undefined : (JSON.parse(text) as Record<string, Value>);
}

/**
 * A new plain object holding `values[i]` under `keys[i]` for i below `n`,
 * in that order (a later duplicate key wins, as assignment would); sized for
 * exactly its fields once the list has come often enough. For decoders,
 * which read keys and values into scratch lists reused from object to
 * object: neither list is kept. A `__proto__` key is an own property.
 */
export function shapedObject(keys: readonly string[], values: readonly unknown[], n: number): Record<string, unknown> {
  const node = n < lastLists.length ? lastList(keys, n) : find(keys, n);
  if (node?.make) return node.make(values);
  const text = node ? noteMade(node, keys, n) : remember(keys.slice(0, n));
  const out = (text === undefined ? {} : JSON.parse(text)) as Record<string, unknown>;
  for (let i = 0; i < n; i++) {
    const key = keys[i]!;
    if (key === '__proto__') Object.defineProperty(out, key, { value: values[i], writable: true, enumerable: true });
    else out[key] = values[i];
  }
  return out;
}

/**
 * The shape of the records made from `body` with an `id` first, which
 * `body` must not hold itself; undefined when its key list cannot be
 * templated (see recordObject).
 */
export function recordShapeOf(body: Readonly<Record<string, unknown>>): RecordShape | undefined {
  if (lastShape && hasKeys(body, lastShape.keys)) return lastShape;
  const keys = ['id', ...Object.keys(body)];
  let node = find(keys, keys.length);
  if (node?.text === undefined) {
    if (remember(keys) === undefined) return undefined;
    node = find(keys, keys.length)!;
  }
  node.shape ??= shapeFor(keys, node.text!);
  return (lastShape = node.shape);
}

/** True when the keys `for...in` walks on `body` are exactly `keys` after the first (`id`). */
function hasKeys(body: Readonly<Record<string, unknown>>, keys: readonly string[]): boolean {
  let i = 1;
  for (const key in body) if (key !== keys[i++]) return false;
  return i === keys.length;
}

function shapeFor(keys: readonly string[], text: string): RecordShape {
  const compiledMaker = compileMaker(keys);
  if (compiledMaker) return { keys, make: compiledMaker };
  return {
    keys,
    make(body, id, convert) {
      const out = JSON.parse(text) as Record<string, Value>;
      out.id = id;
      for (let i = 1; i < keys.length; i++) {
        const key = keys[i]!;
        assertSafeKey(key, '');
        out[key] = convert(body[key], key);
      }
      return out;
    },
  };
}

/** A function returning the record of `keys` as one object literal; undefined where it may not be compiled. */
function compileMaker(keys: readonly string[]): RecordShape['make'] | undefined {
  if (!canCompile || keys.length > MAX_COMPILED_KEYS || keys[0] !== 'id') return undefined;
  for (let i = 1; i < keys.length; i++) if (keys[i] === 'id' || !isSafeKey(keys[i]!)) return undefined;
  // JSON string literals are JavaScript string literals: a key cannot leave its quotes.
  const quoted = keys.map((key) => JSON.stringify(key));
  const members = quoted.map((key, i) => (i === 0 ? `${key}: id` : `${key}: convert(body[${key}], ${key})`));
  try {
    return new Function(
      'body',
      'id',
      'convert',
      `'use strict'; return {${members.join(', ')}};`,
    ) as RecordShape['make'];
  } catch {
    canCompile = false;
    return undefined;
  }
}

/** A key list shapedObject found, and its node. */
interface FoundList {
  readonly keys: string[];
  readonly node: KeyNode;
}

/**
 * The last two lists of each length up to 31 that shapedObject found: a
 * decoder meets the same few lists over and over (a record's, its nested
 * objects', records with one optional field or another), and comparing the
 * keys, most of them the same strings (values/own-string.ts shares them),
 * costs less than walking the tree.
 */
const lastLists: Array<[FoundList | undefined, FoundList | undefined]> = Array.from({ length: 32 }, () => [
  undefined,
  undefined,
]);

function sameKeys(found: FoundList | undefined, keys: readonly string[], n: number): boolean {
  if (found === undefined) return false;
  for (let i = 0; i < n; i++) if (found.keys[i] !== keys[i]) return false;
  return true;
}

/** find(keys, n) through lastLists. */
function lastList(keys: readonly string[], n: number): KeyNode | undefined {
  const pair = lastLists[n]!;
  if (sameKeys(pair[0], keys, n)) return pair[0]!.node;
  if (sameKeys(pair[1], keys, n)) {
    const found = pair[1]!;
    pair[1] = pair[0];
    pair[0] = found;
    return found.node;
  }
  const node = find(keys, n);
  if (node?.text !== undefined) {
    pair[1] = pair[0];
    pair[0] = { keys: keys.slice(0, n), node };
  }
  return node;
}

/** The node of the first `n` keys, or undefined when that list is not remembered. */
function find(keys: readonly string[], n: number): KeyNode | undefined {
  let node: KeyNode | undefined = root;
  for (let i = 0; i < n && node; i++) node = node.next.get(keys[i]!);
  return node;
}

/** Counts a record made of `node`'s list (compiling the list when it is due); the list's template. */
function noteMade(node: KeyNode, keys: readonly string[], n: number): string | undefined {
  if (node.text === undefined) return remember(keys.slice(0, n));
  if (++node.made >= COMPILE_AFTER && n <= MAX_COMPILED_KEYS && canCompile) {
    if (compiled >= MAX_COMPILED) startOver();
    else {
      node.make = compile(keys, n);
      if (node.make) compiled++;
    }
  }
  return node.text;
}

/**
 * The literal of the first `n` keys as a function of their values. Each key
 * is written as a JSON string, which is a JavaScript string literal, so no
 * key is read as code; `__proto__` is never compiled (as a literal's key it
 * sets the prototype).
 */
function compile(keys: readonly string[], n: number): Maker | undefined {
  const fields: string[] = [];
  for (let i = 0; i < n; i++) fields.push(`${JSON.stringify(keys[i])}:v[${i}]`);
  try {
    return new Function('v', `"use strict";return{${fields.join(',')}}`) as Maker;
  } catch {
    canCompile = false;
    return undefined;
  }
}

function startOver(): void {
  root = { next: new Map(), made: 0 };
  nodes = 0;
  compiled = 0;
  lastShape = undefined;
  for (const pair of lastLists) pair[0] = pair[1] = undefined;
}

/** Adds the template of `keys`; undefined for a list it refuses. */
function remember(keys: readonly string[]): string | undefined {
  if (keys.length > MAX_NODES || keys.includes('__proto__')) return undefined;
  if (nodes + keys.length > MAX_NODES) startOver();
  let node = root;
  for (const key of keys) {
    let child = node.next.get(key);
    if (!child) {
      node.next.set(key, (child = { next: new Map(), made: 0 }));
      nodes++;
    }
    node = child;
  }
  node.text = `{${keys.map((k) => `${JSON.stringify(k)}:null`).join(',')}}`;
  return node.text;
}
