/**
 * MessagePack encoding of log and snapshot payloads (msgpackr).
 *
 * Stored values are written as they live in memory; `Tagged` values travel
 * as extension type 0x45 ('E') holding `[type, value]`. Maps decode as plain
 * objects. An Integer beyond ±(2^53 - 1) is a bigint in memory and a 64-bit
 * int on disk; msgpackr writes every number as at most a 32-bit int or a
 * float64, so a 64-bit int on disk is always such an Integer and is read back
 * as a bigint, never rounded to a float. This codec is for our own files
 * only; the HTTP layer has its own.
 *
 * Payloads are decoded by unpack.ts, which builds each record once as the
 * state keeps it, and by msgpackr for what it leaves (other extensions).
 * Decoded strings own their text (values/own-string.ts: otherwise a recovered
 * record kept its frame's decoded text alive), and after reading a file
 * `releaseSource` drops the reader's reference to it (msgpackr keeps the
 * last source, here a whole segment or snapshot).
 *
 * Effects are spelled out in memory and compact in the log: this file is the
 * one place that maps between the two (`storedEffect`, `effectFromStored`).
 */
import { addExtension, Packr, Unpackr } from 'msgpackr';
import { ownStrings, Tagged, type TaggedPayload, type TaggedType } from '../values/index.js';
import type { Effect, LoggedBatch } from '../write/effects.js';
import { NOT_DECODED, unpackStored } from './unpack.js';

export const TAGGED_EXT = 0x45;

addExtension({
  Class: Tagged,
  type: TAGGED_EXT,
  write: (t: Tagged) => [t.type, packableValue(t.value)],
  read: ([type, value]: [TaggedType, TaggedPayload]) => new Tagged(type, ownStrings(value) as TaggedPayload),
});

const packr = new Packr({ useRecords: false, moreTypes: false, bundleStrings: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: 'bigint' });

/**
 * A stored value for msgpackr to pack: itself, or a copy of an array.
 * msgpackr's packing loop, once optimized, turns the arrays it reads into
 * arrays of boxed elements (V8 generalizes their elements kind), and a
 * stored array of numbers must stay an array of doubles
 * (values/stored-array.ts): the copy is what gets boxed, garbage at once.
 * Used for a Tagged's payload and the payload writer's fields
 * (payload-writer.ts).
 */
export function packableValue<T>(value: T): T {
  return Array.isArray(value) ? (value.slice() as T) : value;
}

export function encodePayload(value: unknown): Buffer {
  return packr.pack(value);
}

/**
 * The value of a payload: by unpackStored (unpack.ts) when it can, else by
 * msgpackr, its strings then made owned. Nothing in the value refers to
 * `buf` (msgpackr's binary values point into a copy of it), so a reader may
 * reuse its buffer for the next frame.
 */
export function decodePayload<T>(buf: Uint8Array): T {
  const value = unpackStored(buf);
  return (value === NOT_DECODED ? ownStrings(unpackr.unpack(Buffer.from(buf))) : value) as T;
}

/** Lets go of the buffer last decoded (a whole segment or snapshot file is one). */
export function releaseSource(): void {
  unpackr.unpack(NIL);
}

const NIL = Buffer.alloc(1, 0xc0);

/**
 * The names an effect's fields have in the log (FORMAT.md, Segments) where
 * they differ from memory; every other field keeps its name. Replication
 * ships effects in the same form.
 */
const STORED_NAME: Readonly<Record<string, string>> = { kind: 't', collection: 'c', noRipple: 'nr' };
const MEMORY_NAME: Readonly<Record<string, string>> = { t: 'kind', c: 'collection', nr: 'noRipple' };

/** An effect as the log stores it: `{t, c?, nr?, ...}`. */
export type StoredEffect = { readonly t: string; readonly [field: string]: unknown };

/** The stored form of an effect. Puts, most of any log, are built field by field; the rest are renamed. */
export function storedEffect(effect: Effect): StoredEffect {
  if (effect.kind === 'put') {
    const stored: Record<string, unknown> = { t: 'put', c: effect.collection, id: effect.id, fields: effect.fields };
    if (effect.expiresAt !== undefined) stored.expiresAt = effect.expiresAt;
    if (effect.slidingMs !== undefined) stored.slidingMs = effect.slidingMs;
    if (effect.noRipple) stored.nr = true;
    return stored as StoredEffect;
  }
  return renamed(effect, STORED_NAME) as StoredEffect;
}

/** The effects of `effects` from `from` to `to` (exclusive), in their stored form. */
export function storedEffects(effects: readonly Effect[], from = 0, to = effects.length): StoredEffect[] {
  const out = new Array<StoredEffect>(to - from);
  for (let i = from; i < to; i++) out[i - from] = storedEffect(effects[i]!);
  return out;
}

/**
 * The in-memory form of a stored effect. What is not a stored effect (a
 * damaged log, a malformed batch from a peer) comes back as it is, for the
 * caller's checks to refuse.
 */
export function effectFromStored(stored: unknown): Effect {
  if (typeof stored !== 'object' || stored === null) return stored as Effect;
  const fields = stored as Record<string, unknown>;
  if (fields.t === 'put') {
    const effect: Record<string, unknown> = { kind: 'put', collection: fields.c, id: fields.id, fields: fields.fields };
    if (fields.expiresAt !== undefined) effect.expiresAt = fields.expiresAt;
    if (fields.slidingMs !== undefined) effect.slidingMs = fields.slidingMs;
    if (fields.nr) effect.noRipple = true;
    return effect as Effect;
  }
  return renamed(fields, MEMORY_NAME) as Effect;
}

/** The kind of a stored effect, without converting it (counting records in a damaged file). */
export function storedKind(stored: unknown): unknown {
  return typeof stored === 'object' && stored !== null ? (stored as { t?: unknown }).t : undefined;
}

/** A batch's frame payload: `{seq, effects}` with the effects in their stored form. */
export function encodeBatch(batch: LoggedBatch): Buffer {
  return encodePayload({ seq: batch.seq, effects: storedEffects(batch.effects) });
}

/** A logged batch from its frame's payload; undefined when the payload is not a batch. */
export function decodeBatch(payload: Uint8Array): LoggedBatch | undefined {
  const raw = decodePayload<{ seq?: unknown; effects?: unknown } | undefined>(payload);
  if (typeof raw?.seq !== 'number' || !Array.isArray(raw.effects)) return undefined;
  const effects = raw.effects as unknown[];
  for (let i = 0; i < effects.length; i++) effects[i] = effectFromStored(effects[i]);
  return raw as LoggedBatch;
}

/** A copy of `from` with each own field named by `names` where listed (symbol keys are left behind). */
function renamed(from: object, names: Readonly<Record<string, string>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(from)) out[names[field] ?? field] = value;
  return out;
}
