/**
 * Effects: the only things the log records. Every mutation, whatever route
 * or transaction produced it, becomes one batch of these post-images, so
 * replay never depends on the clock, randomness, HTTP or an LLM.
 */
import type { Fields, Value } from '../values/index.js';
import type { ApiKeyRecord, CollectionMeta } from './state.js';

/**
 * On a put: its id was made by the id generator for this write, so no
 * record held it (ids.ts: made ids never repeat and cannot be guessed;
 * Records.insertInto already skips the existence check for them). The
 * change feed and the appliers then skip looking the id up: a miss in a
 * large Map costs 0.3-0.4 µs, and each insert looked its id up three
 * times. A symbol key, so it is never logged: replay looks ids up as
 * before, and anything that copies an effect without it only loses the
 * shortcut.
 */
export const MADE_ID: unique symbol = Symbol('eddydb.madeId');

/**
 * `nr` (no ripple) marks an effect written with `bypass_ripple`: it is
 * applied and logged like any other but not propagated to replicas.
 */
export type Effect =
  | { readonly t: 'createCollection'; readonly meta: CollectionMeta; readonly nr?: true }
  | { readonly t: 'setCollectionMeta'; readonly meta: CollectionMeta }
  | { readonly t: 'dropCollection'; readonly name: string }
  | {
      readonly t: 'put'; readonly c: string; readonly id: string; readonly fields: Fields;
      readonly expiresAt?: number; readonly slidingMs?: number; readonly nr?: true;
      readonly [MADE_ID]?: true;
    }
  /** Removes a live record; with `trashedAt` it moves to the trash. */
  | { readonly t: 'delete'; readonly c: string; readonly id: string; readonly trashedAt?: number; readonly nr?: true }
  /** Moves a trashed record back to its collection. */
  | { readonly t: 'restore'; readonly c: string; readonly id: string }
  /** Permanently removes a trashed record. */
  | { readonly t: 'purge'; readonly c: string; readonly id: string }
  | { readonly t: 'kvSet'; readonly key: string; readonly value: Value; readonly expiresAt?: number; readonly nr?: true }
  | { readonly t: 'kvDelete'; readonly key: string; readonly nr?: true }
  | { readonly t: 'kvClear'; readonly nr?: true }
  | { readonly t: 'kvLink'; readonly key: string; readonly c: string; readonly id: string; readonly nr?: true }
  | { readonly t: 'kvUnlink'; readonly key: string; readonly c: string; readonly id: string; readonly nr?: true }
  | { readonly t: 'keyPut'; readonly key: ApiKeyRecord }
  | { readonly t: 'keyDelete'; readonly id: string }
  | { readonly t: 'config'; readonly values: Readonly<Record<string, unknown>> };

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
  return bypassRipple ? effects.map(noRipple) : effects;
}

/** Marks an effect as not to be propagated to replicas (bypass_ripple). */
export function noRipple(e: Effect): Effect {
  return 'nr' in e || NR_CAPABLE.has(e.t) ? { ...e, nr: true } as Effect : e;
}

const NR_CAPABLE: ReadonlySet<Effect['t']> = new Set(['put', 'delete', 'createCollection', 'kvSet', 'kvDelete', 'kvClear', 'kvLink', 'kvUnlink']);
