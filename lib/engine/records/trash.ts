/**
 * The trash: deleted records are kept for 30 days and can be restored, one
 * at a time or a whole collection at once. `purgeExpired` permanently
 * removes what is older; the server runs it on a CronTimer (cron-timer.ts,
 * `trashPurgeCron`), and it reads the injectable clock so tests can move time.
 */
import { Conflict, NotFound } from '../../errors.js';
import type { EngineCore } from '../core.js';
import type { Effect } from '../write/effects.js';
import type { Fields } from '../values/index.js';
import { validateCollectionName } from '../collections/names.js';
import { collectDue, writeInChunks } from '../expiry/sweep.js';

export const TRASH_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** One page of a trash listing. */
export interface TrashPage {
  readonly total: number;
  readonly entries: readonly TrashedRecord[];
}

export interface TrashedRecord {
  readonly id: string;
  readonly deletedAt: number;
  readonly fields: Fields;
}

export class Trash {
  constructor(private readonly db: EngineCore) {}

  /** Restores one record. 404 when it is not in the trash; 409 when a live record has its id. */
  async restore(collection: string, id: string): Promise<void> {
    validateCollectionName(collection);
    await this.db.write((view) => {
      if (!view.trashed(collection, id))
        throw new NotFound(`Record '${id}' is not in the trash of collection '${collection}'`);
      if (!view.collection(collection)) throw new NotFound(`Collection '${collection}' no longer exists`);
      if (view.record(collection, id))
        throw new Conflict(`A live record with id '${id}' already exists in '${collection}'`);
      return { effects: [{ kind: 'restore', collection, id }], result: undefined };
    });
  }

  /** Restores every trashed record of a collection whose id is free. Returns how many. */
  async restoreAll(collection: string): Promise<number> {
    validateCollectionName(collection);
    return this.db.write((view) => {
      if (!view.collection(collection)) throw new NotFound(`Collection '${collection}' not found`);
      const effects: Effect[] = [];
      for (const [id] of view.trashedRecords(collection))
        if (!view.record(collection, id)) effects.push({ kind: 'restore', collection, id });
      return { effects, result: effects.length };
    });
  }

  /**
   * A page of a collection's trash, the most recently deleted first, with how many it holds. 404 when the
   * collection does not exist (dropping a collection drops its trash).
   */
  list(collection: string, limit: number, skip: number): TrashPage {
    validateCollectionName(collection);
    if (!this.db.state.collections.has(collection)) throw new NotFound(`Collection '${collection}' not found`);
    const trashed = this.db.state.trash.get(collection);
    if (!trashed) return { total: 0, entries: [] };
    // Deletion order is the map's order: the page is taken from its end.
    const ids = [...trashed.keys()];
    const end = Math.max(ids.length - skip, 0);
    const entries: TrashedRecord[] = [];
    for (let i = end - 1; i >= Math.max(end - limit, 0); i--) {
      const t = trashed.get(ids[i]!)!;
      entries.push({ id: ids[i]!, deletedAt: t.deletedAt, fields: t.entry.fields });
    }
    return { total: ids.length, entries };
  }

  count(collection: string): number {
    return this.db.state.trash.get(collection)?.size ?? 0;
  }

  /**
   * Permanently deletes trashed records older than the retention period,
   * found in slices and purged in chunks of one durable write each
   * (sweep.ts). Returns how many.
   */
  async purgeExpired(): Promise<number> {
    const cutoff = this.db.now() - TRASH_RETENTION_MS;
    let due: Array<[string, string]> = [];
    for (const [collection, trashed] of [...this.db.state.trash]) {
      due = due.concat(
        await collectDue(trashed, ([id, t]): [string, string] | undefined =>
          t.deletedAt <= cutoff ? [collection, id] : undefined,
        ),
      );
    }
    return writeInChunks(this.db, due, (view, chunk) =>
      chunk
        .filter(([c, id]) => {
          const t = view.trashed(c, id);
          return t !== undefined && t.deletedAt <= cutoff;
        })
        .map(([c, id]): Effect => ({ kind: 'purge', collection: c, id })),
    );
  }
}
