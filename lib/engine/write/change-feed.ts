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

/**
 * The changes of `batch` over `before`, the images before it: the committed
 * state (stateBefore), or the writer's view before it stages the batch.
 * A put under a made id is an insert whatever the images say, so its change
 * is made only when a listener reads `changes` (MadeInserts): a batch of
 * 10,000 inserts with nobody following its changes makes none of them.
 */
export function describeOver(before: BeforeImages, batch: LoggedBatch): CommitInfo {
  const changes: RecordChange[] = [];
  /** For each of `changes`, the index of its effect in the batch. */
  const effectAt: number[] = [];
  const schemaChanged: string[] = [];
  let madeInserts = 0;
  const effects = batch.effects as Effect[];
  for (let at = 0; at < effects.length; at++) {
    const effect = effects[at]!;
    const count = changes.length;
    switch (effect.kind) {
      case 'put': {
        if (effect[MADE_ID]) {
          madeInserts++;
          break;
        }
        // The state is the one before the batch: a record absent from it is new, however often the batch puts it.
        changes.push(putChange(effect, before.record(effect.collection, effect.id)?.fields));
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
    if (changes.length > count) effectAt.push(at);
  }
  if (madeInserts === 0) return { seq: batch.seq, changes, schemaChanged };
  return new MadeInserts(batch.seq, effects, changes, effectAt, schemaChanged);
}

/** A batch's changes, those of its puts under made ids made when first read, in the batch's order. */
class MadeInserts implements CommitInfo {
  private list: RecordChange[] | undefined;

  constructor(
    readonly seq: number,
    private readonly effects: readonly Effect[],
    private readonly described: readonly RecordChange[],
    private readonly effectAt: readonly number[],
    readonly schemaChanged: readonly string[],
  ) {}

  get changes(): readonly RecordChange[] {
    return (this.list ??= this.merged());
  }

  private merged(): RecordChange[] {
    const list: RecordChange[] = [];
    let next = 0;
    for (let at = 0; at < this.effects.length; at++) {
      const effect = this.effects[at]!;
      if (effect.kind === 'put' && effect[MADE_ID]) list.push(putChange(effect, undefined));
      else if (this.effectAt[next] === at) list.push(this.described[next++]!);
    }
    return list;
  }
}

/** The change a put makes: an update of `before`, the record's image before the batch, or an insert without one. */
function putChange(put: Extract<Effect, { kind: 'put' }>, before: Fields | undefined): RecordChange {
  const event = before !== undefined ? 'update' : 'insert';
  return { collection: put.collection, event, id: put.id, fields: put.fields, before };
}
