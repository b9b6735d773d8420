/**
 * The change feed's view of a committed batch: which records were inserted,
 * updated or deleted, and which collections' schemas changed. Computed by
 * the writer just before the batch is applied (so "existed before" is
 * known, and so is each record's image before the batch), and handed to
 * listeners after it is durable and applied.
 */
import { MADE_ID, type Effect, type LoggedBatch } from './effects.js';
import type { DbState } from './state.js';
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

export function describeChanges(state: DbState, batch: LoggedBatch): CommitInfo {
  const changes: RecordChange[] = [];
  const schemaChanged: string[] = [];
  for (const effect of batch.effects as Effect[]) {
    switch (effect.kind) {
      case 'put': {
        // The state is the one before the batch: a record absent from it is new, however often the batch puts it.
        const before = effect[MADE_ID]
          ? undefined
          : state.collections.get(effect.collection)?.records.get(effect.id)?.fields;
        const event = before !== undefined ? 'update' : 'insert';
        changes.push({ collection: effect.collection, event, id: effect.id, fields: effect.fields, before });
        break;
      }
      case 'delete': {
        const before = state.collections.get(effect.collection)?.records.get(effect.id)?.fields;
        if (before) changes.push({ collection: effect.collection, event: 'delete', id: effect.id, before });
        break;
      }
      case 'restore':
        changes.push({
          collection: effect.collection,
          event: 'insert',
          id: effect.id,
          fields: state.trash.get(effect.collection)?.get(effect.id)?.entry.fields,
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
