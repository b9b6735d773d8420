/**
 * applyBatch: the one function that changes DbState. Live writes (after the
 * log append is durable) and recovery replay both call it, so what is
 * replayed is exactly what was served. No I/O, no clock, no randomness.
 */
import assert from 'node:assert';
import { CollectionState, type DbState, type RecordEntry } from './state.js';
import type { Effect, LoggedBatch } from './effects.js';

export function applyBatch(state: DbState, batch: LoggedBatch): void {
  assert(batch.seq > state.seq, `batch seq ${batch.seq} must follow state seq ${state.seq}`);
  for (const effect of batch.effects) applyEffect(state, effect, batch.seq);
  if (batch.origin !== undefined && batch.originSeq !== undefined) state.rippleSeen.set(batch.origin, batch.originSeq);
  state.seq = batch.seq;
}

function applyEffect(state: DbState, e: Effect, seq: number): void {
  switch (e.t) {
    case 'createCollection':
      if (!state.collections.has(e.meta.name)) {
        const coll = new CollectionState(e.meta);
        coll.changeSeq = seq;
        state.collections.set(e.meta.name, coll);
      }
      return;
    case 'setCollectionMeta': {
      const coll = state.collections.get(e.meta.name);
      if (coll) { coll.meta = e.meta; coll.changeSeq = seq; }
      return;
    }
    case 'dropCollection':
      state.collections.delete(e.name);
      state.trash.delete(e.name);
      return;
    case 'put': {
      const coll = state.collections.get(e.c);
      assert(coll, `put into missing collection ${e.c}`);
      const before = coll.records.get(e.id);
      if (!before) coll.membershipVersion = seq;
      coll.noteBeforeWrite(e.id);
      coll.records.set(e.id, toEntry(e, seq, before?.ord ?? ++coll.lastOrd));
      coll.changeSeq = seq;
      return;
    }
    case 'delete': {
      const coll = state.collections.get(e.c);
      const entry = coll?.records.get(e.id);
      if (!coll || !entry) return;
      coll.noteBeforeWrite(e.id);
      coll.records.delete(e.id);
      coll.membershipVersion = seq;
      coll.changeSeq = seq;
      if (e.trashedAt !== undefined) trashOf(state, e.c).set(e.id, { entry, deletedAt: e.trashedAt });
      return;
    }
    case 'restore': {
      const trashed = state.trash.get(e.c)?.get(e.id);
      const coll = state.collections.get(e.c);
      if (!trashed || !coll) return;
      state.trash.get(e.c)!.delete(e.id);
      coll.noteBeforeWrite(e.id);
      coll.records.set(e.id, { ...trashed.entry, version: seq, ord: ++coll.lastOrd });
      coll.membershipVersion = seq;
      coll.changeSeq = seq;
      return;
    }
    case 'purge':
      state.trash.get(e.c)?.delete(e.id);
      return;
    case 'kvSet':
      state.kv.set(e.key, e.expiresAt === undefined ? { value: e.value } : { value: e.value, expiresAt: e.expiresAt });
      return;
    case 'kvDelete':
      state.kv.delete(e.key);
      state.kvLinks.delete(e.key);
      return;
    case 'kvClear':
      state.kv.clear();
      state.kvLinks.clear();
      return;
    case 'kvLink': {
      let links = state.kvLinks.get(e.key);
      if (!links) state.kvLinks.set(e.key, (links = new Set()));
      links.add(`${e.c}\u0000${e.id}`);
      return;
    }
    case 'kvUnlink': {
      const links = state.kvLinks.get(e.key);
      links?.delete(`${e.c}\u0000${e.id}`);
      if (links?.size === 0) state.kvLinks.delete(e.key);
      return;
    }
    case 'keyPut':
      state.keys.set(e.key.id, e.key);
      return;
    case 'keyDelete':
      state.keys.delete(e.id);
      return;
    case 'config':
      state.config = { ...state.config, ...e.values };
      return;
    default: {
      const never: never = e;
      throw new Error(`unknown effect ${(never as { t: string }).t}`);
    }
  }
}

function toEntry(e: Extract<Effect, { t: 'put' }>, seq: number, ord: number): RecordEntry {
  const entry: { fields: typeof e.fields; version: number; expiresAt?: number; slidingMs?: number; ord: number } = {
    fields: e.fields, version: seq, ord,
  };
  if (e.expiresAt !== undefined) entry.expiresAt = e.expiresAt;
  if (e.slidingMs !== undefined) entry.slidingMs = e.slidingMs;
  return entry;
}

function trashOf(state: DbState, c: string) {
  let t = state.trash.get(c);
  if (!t) state.trash.set(c, (t = new Map()));
  return t;
}
