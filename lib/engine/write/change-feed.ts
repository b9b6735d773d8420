/**
 * The change feed's view of a committed batch: which records were inserted,
 * updated or deleted, and which collections' schemas changed. Computed by
 * the writer just before the batch is applied (so "existed before" is
 * known, and so is each record's image before the batch), and handed to
 * listeners after it is durable and applied.
 */
import { MADE_ID, type Effect, type LoggedBatch } from './effects.js';
import type { DbState, RecordEntry, TrashEntry } from './state.js';
import type { Fields } from '../values/index.js';

export type ChangeKind = 'insert' | 'update' | 'delete';

export interface RecordChange {
  readonly collection: string;
  readonly event: ChangeKind;
  readonly id: string;
  /** The record after the change (absent for deletes). */
  readonly fields?: Fields;
  /** The record as it was before this batch (absent for inserts); Serializable predicate checks need both images. */
  readonly before?: Fields;
}

export interface CommitInfo {
  readonly seq: number;
  readonly changes: readonly RecordChange[];
  /** Collections whose schema or alias changed. */
  readonly schemaChanged: readonly string[];
}

/**
 * What describing a batch reads: the records and the trash as they were
 * before it. DbState (through `stateBefore`) and the writer's WorkingView,
 * before the batch is staged, both answer it.
 */
export interface BeforeImages {
  record(collection: string, id: string): RecordEntry | undefined;
  trashed(collection: string, id: string): TrashEntry | undefined;
}

/** The committed state as the images before the next batch. */
export function stateBefore(state: DbState): BeforeImages {
  return {
    record: (collection, id) => state.collections.get(collection)?.records.get(id),
    trashed: (collection, id) => state.trash.get(collection)?.get(id),
  };
}

export function describeChanges(state: DbState, batch: LoggedBatch): CommitInfo {
  return describeOver(stateBefore(state), batch);
}

/** describeChanges over any images before the batch (the writer's view, before it stages the batch). */
export function describeOver(before: BeforeImages, batch: LoggedBatch): CommitInfo {
  const changes: RecordChange[] = [];
  const schemaChanged: string[] = [];
  for (const effect of batch.effects as Effect[]) {
    switch (effect.kind) {
      case 'put': {
        // The state is the one before the batch: a record absent from it is new, however often the batch puts it.
        const image = effect[MADE_ID] ? undefined : before.record(effect.collection, effect.id)?.fields;
        const event = image !== undefined ? 'update' : 'insert';
        changes.push({ collection: effect.collection, event, id: effect.id, fields: effect.fields, before: image });
        break;
      }
      case 'delete': {
        const image = before.record(effect.collection, effect.id)?.fields;
        if (image) changes.push({ collection: effect.collection, event: 'delete', id: effect.id, before: image });
        break;
      }
      case 'restore':
        changes.push({
          collection: effect.collection,
          event: 'insert',
          id: effect.id,
          fields: before.trashed(effect.collection, effect.id)?.entry.fields,
        });
        break;
      case 'setCollectionMeta':
        schemaChanged.push(effect.meta.name);
        break;
      default:
        break;
    }
  }
  return { seq: batch.seq, changes, schemaChanged };
}
