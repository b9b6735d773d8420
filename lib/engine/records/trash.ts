/**
 * The trash: deleted records are kept for 30 days and can be restored, one
 * at a time or a whole collection at once. `purgeExpired` permanently
 * removes what is older; the server runs it on a CronTimer (cron-timer.ts,
 * `trashPurgeCron`), and it reads the injectable clock so tests can move time.
 */
import { Conflict, NotFound } from '../../errors.js';
import type { EngineCore } from '../core.js';
import type { Effect } from '../write/effects.js';
import { validateCollectionName } from '../collections/names.js';
import { collectDue, writeInChunks } from '../expiry/sweep.js';

export const TRASH_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

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
