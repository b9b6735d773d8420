/**
 * applyEffect: the meaning of each effect, written once. It runs against an
 * EffectTarget, which only stores: DbState when a durable batch is applied
 * (apply-batch.ts), and the writer's overlay while a group is computed
 * (working-view.ts). So what an operation sees of its group's earlier
 * writes is exactly what the state will hold once the group is durable.
 * (LevelDB's WriteBatch::Handler has the same shape: one iteration over the
 * batch, one handler per destination.)
 *
 * A new effect type is one case here and, if it needs a new kind of storage,
 * one method on EffectTarget, which both targets then must implement.
 */
import { MADE_ID, type Effect } from './effects.js';
import type { ApiKeyRecord, CollectionMeta, KvEntry, RecordEntry, TrashEntry } from './state.js';
import type { Fields } from '../values/index.js';

/** What a record write stores; the target stamps the version (and order) itself. */
export interface RecordImage {
  readonly fields: Fields;
  readonly expiresAt?: number;
  readonly slidingMs?: number;
}

/**
 * Storage that effects are applied to. Reads see earlier writes to the same
 * target; writes do no checking of their own (applyEffect has checked).
 */
export interface EffectTarget {
  collection(name: string): CollectionMeta | undefined;
  record(collection: string, id: string): RecordEntry | undefined;
  trashed(collection: string, id: string): TrashEntry | undefined;
  config(): Readonly<Record<string, unknown>>;

  /** Creates the collection, or replaces the meta of an existing one. */
  setCollection(meta: CollectionMeta): void;
  /** Removes the collection with its records and its trash. */
  dropCollection(name: string): void;
  /**
   * REQUIRES: `collection` exists. `madeId`: no record holds `id` (effects.ts MADE_ID), so there is nothing to look up.
   */
  putRecord(collection: string, id: string, image: RecordImage, madeId: boolean): void;
  /** REQUIRES: the record exists. */
  removeRecord(collection: string, id: string): void;
  putTrashed(collection: string, id: string, trashed: TrashEntry): void;
  removeTrashed(collection: string, id: string): void;
  setKv(key: string, entry: KvEntry): void;
  /** Removes the KV key and its record links. */
  deleteKv(key: string): void;
  clearKv(): void;
  link(key: string, collection: string, id: string): void;
  unlink(key: string, collection: string, id: string): void;
  setApiKey(key: ApiKeyRecord): void;
  deleteApiKey(id: string): void;
  setConfig(config: Readonly<Record<string, unknown>>): void;
}

/** Applies one effect to `target`. Effects that no longer apply (a delete of an absent record) change nothing. */
export function applyEffect(target: EffectTarget, effect: Effect): void {
  switch (effect.kind) {
    case 'createCollection':
      if (!target.collection(effect.meta.name)) target.setCollection(effect.meta);
      return;
    case 'setCollectionMeta':
      if (target.collection(effect.meta.name)) target.setCollection(effect.meta);
      return;
    case 'dropCollection':
      target.dropCollection(effect.name);
      return;
    case 'put':
      target.putRecord(effect.collection, effect.id, effect, effect[MADE_ID] === true);
      return;
    case 'delete': {
      const entry = target.record(effect.collection, effect.id);
      if (!entry) return;
      target.removeRecord(effect.collection, effect.id);
      if (effect.trashedAt !== undefined)
        target.putTrashed(effect.collection, effect.id, { entry, deletedAt: effect.trashedAt });
      return;
    }
    case 'restore': {
      const trashed = target.trashed(effect.collection, effect.id);
      if (!trashed || !target.collection(effect.collection)) return;
      target.removeTrashed(effect.collection, effect.id);
      target.putRecord(effect.collection, effect.id, trashed.entry, false);
      return;
    }
    case 'purge':
      target.removeTrashed(effect.collection, effect.id);
      return;
    case 'kvSet':
      target.setKv(
        effect.key,
        effect.expiresAt === undefined ? { value: effect.value } : { value: effect.value, expiresAt: effect.expiresAt },
      );
      return;
    case 'kvDelete':
      target.deleteKv(effect.key);
      return;
    case 'kvClear':
      target.clearKv();
      return;
    case 'kvLink':
      target.link(effect.key, effect.collection, effect.id);
      return;
    case 'kvUnlink':
      target.unlink(effect.key, effect.collection, effect.id);
      return;
    case 'keyPut':
      target.setApiKey(effect.key);
      return;
    case 'keyDelete':
      target.deleteApiKey(effect.id);
      return;
    case 'config':
      target.setConfig({ ...target.config(), ...effect.values });
      return;
    default: {
      const never: never = effect;
      throw new Error(`unknown effect ${(never as { kind: string }).kind}`);
    }
  }
}
