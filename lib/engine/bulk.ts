/**
 * Bulk writes: many records in one durable unit. Each item is checked on
 * its own, so one bad record fails alone while the rest succeed; the
 * successful ones are logged as a single batch, so after a crash they are
 * all present or all absent.
 */
import { toDbError } from '../errors.js';
import type { Database } from './database.js';
import type { Effect } from './effects.js';
import { validateCollectionName } from './names.js';
import type { PreparedWrite } from './records.js';

export interface BulkResult {
  readonly successful: string[];
  readonly failed: Array<{ index: number; id: string | null; error: string }>;
}

export class Bulk {
  constructor(private readonly db: Database) {}

  /** Inserts every valid body as one logged batch; invalid ones are reported in `failed`. */
  async insertMany(c: string, bodies: readonly unknown[]): Promise<BulkResult> {
    validateCollectionName(c);
    const failed: BulkResult['failed'] = [];
    const prepared: Array<[number, PreparedWrite]> = [];
    bodies.forEach((body, index) => {
      try {
        prepared.push([index, this.db.records.prepare(body)]);
      } catch (err) {
        failed.push({ index, id: idOf(body), error: toDbError(err).message });
      }
    });
    return this.db.write((view) => {
      const effects: Effect[] = [];
      const successful: string[] = [];
      for (const [index, p] of prepared) {
        const own: Effect[] = [];
        try {
          successful.push(this.db.records.insertInto(view, c, p, own));
          view.stage(own);
          effects.push(...own);
        } catch (err) {
          failed.push({ index, id: p.id ?? null, error: toDbError(err).message });
        }
      }
      failed.sort((a, b) => a.index - b.index);
      return { effects, result: { successful, failed } };
    });
  }
}

function idOf(body: unknown): string | null {
  const id = body !== null && typeof body === 'object' ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : null;
}
