/**
 * Effects: the only things the log records. Every mutation, whatever route
 * or transaction produced it, becomes one batch of these post-images, so
 * replay never depends on the clock, randomness, HTTP or an LLM.
 */
import type { Fields, Value } from '../values/index.js';
import type { ApiKeyRecord, CollectionMeta } from './state.js';

/**
 * On a put: its id was made by the id generator for this write, so no
 * record holds it (ids.ts: made ids never repeat and cannot be guessed).
 * The change feed and the appliers then skip looking the id up. A symbol
 * key, so it is never logged: replay looks every id up, and anything that
 * copies an effect without the mark only loses the shortcut.
 */
export const MADE_ID: unique symbol = Symbol('eddydb.madeId');

/**
 * Field names are spelled out in memory; the log stores `kind`, `collection`
 * and `noRipple` as `t`, `c` and `nr` (storage/codec.ts maps them, FORMAT.md
 * lists them). `noRipple` marks an effect written with `bypass_ripple`: it is
 * applied and logged like any other but not propagated to replicas.
 */
export type Effect =
  | { readonly kind: 'createCollection'; readonly meta: CollectionMeta; readonly noRipple?: true }
  | { readonly kind: 'setCollectionMeta'; readonly meta: CollectionMeta }
  | { readonly kind: 'dropCollection'; readonly name: string }
  | {
      readonly kind: 'put';
      readonly collection: string;
      readonly id: string;
      readonly fields: Fields;
      readonly expiresAt?: number;
      readonly slidingMs?: number;
      readonly noRipple?: true;
      readonly [MADE_ID]?: true;
    }
  /** Removes a live record; with `trashedAt` it moves to the trash. */
  | {
      readonly kind: 'delete';
      readonly collection: string;
      readonly id: string;
      readonly trashedAt?: number;
      readonly noRipple?: true;
    }
  /** Moves a trashed record back to its collection. */
  | { readonly kind: 'restore'; readonly collection: string; readonly id: string }
  /** Permanently removes a trashed record. */
  | { readonly kind: 'purge'; readonly collection: string; readonly id: string }
  | {
      readonly kind: 'kvSet';
      readonly key: string;
      readonly value: Value;
      readonly expiresAt?: number;
      readonly noRipple?: true;
    }
  | { readonly kind: 'kvDelete'; readonly key: string; readonly noRipple?: true }
  | { readonly kind: 'kvClear'; readonly noRipple?: true }
  | {
      readonly kind: 'kvLink';
      readonly key: string;
      readonly collection: string;
      readonly id: string;
      readonly noRipple?: true;
    }
  | {
      readonly kind: 'kvUnlink';
      readonly key: string;
      readonly collection: string;
      readonly id: string;
      readonly noRipple?: true;
    }
  | { readonly kind: 'keyPut'; readonly key: ApiKeyRecord }
  | { readonly kind: 'keyDelete'; readonly id: string }
  | { readonly kind: 'config'; readonly values: Readonly<Record<string, unknown>> };

/** One durable unit: after a crash it is either fully present or absent. */
export interface LoggedBatch {
  readonly seq: number;
  readonly effects: readonly Effect[];
  /** For batches applied from a replication peer: the node that made the change and its seq there. */
  readonly origin?: string;
  readonly originSeq?: number;
}

/** The effects of one write, marked not to be propagated when it bypasses ripple. */
export function markNoRipple(effects: Effect[], bypassRipple: boolean | undefined): Effect[] {
  return bypassRipple ? effects.map(withNoRipple) : effects;
}

/** Marks an effect as not to be propagated to replicas (bypass_ripple). */
export function withNoRipple(effect: Effect): Effect {
  return 'noRipple' in effect || CAN_SKIP_RIPPLE.has(effect.kind) ? ({ ...effect, noRipple: true } as Effect) : effect;
}

const CAN_SKIP_RIPPLE: ReadonlySet<Effect['kind']> = new Set([
  'put',
  'delete',
  'createCollection',
  'kvSet',
  'kvDelete',
  'kvClear',
  'kvLink',
  'kvUnlink',
]);
