/**
 * Bulk writes: many records in one durable unit.
 *
 * Items are processed in chunks. An item that fails (validation, missing
 * record, duplicate id) is reported alone while the rest go on; a chunk that
 * fails unexpectedly is dropped whole and reported as one entry with a null
 * id naming the chunk. Everything that succeeded is logged as ONE batch, so
 * after a crash the request's writes are all present or all absent.
 *
 * A large request does not hold the event loop: items are parsed (and new
 * ids made) before the writer is asked, in slices, and the writer operation
 * yields between chunks (Slicer). It keeps the writer meanwhile, so no other
 * write runs inside the unit, and nothing is visible to readers until the
 * whole batch is durable and applied at once.
 */
import { DbError, toDbError } from '../../errors.js';
import type { EngineCore } from '../core.js';
import { markNoRipple, type Effect } from '../write/effects.js';
import { validateId } from './ids.js';
import { validateCollectionName } from '../collections/names.js';
import type { PreparedWrite, Records } from './records.js';
import type { Fields } from '../values/index.js';
import type { WorkingView } from '../write/working-view.js';
import { Slicer, yieldToLoop } from '../time/slices.js';

export const BULK_CHUNK = 1000;

export interface BulkFailure {
  readonly index?: number;
  readonly id: string | null;
  readonly error: string;
}

export interface BulkResult {
  readonly successful: string[];
  readonly failed: BulkFailure[];
}

/** One item of a bulk request, already parsed from the wire. */
export type BulkItem =
  | { readonly kind: 'insert'; readonly body: unknown; readonly bypassRipple?: boolean }
  | { readonly kind: 'update'; readonly id: unknown; readonly body: unknown; readonly bypassRipple?: boolean }
  | { readonly kind: 'delete'; readonly id: unknown; readonly bypassRipple?: boolean };

/** An item ready for the writer; `index` is its place in the request. */
type Prepared = { readonly index: number; readonly bypassRipple: boolean } &
  /** A plain body's stored record, made ahead with its new id (Records.makeNew). */
  (
    | { kind: 'new'; record: Fields; body: unknown }
    | { kind: 'insert'; p: PreparedWrite; freshId?: string }
    | { kind: 'update'; id: string; p: PreparedWrite }
    | { kind: 'delete'; id: string }
  );

export class Bulk {
  constructor(
    private readonly db: EngineCore,
    private readonly records: Records,
  ) {}

  /** Inserts every valid body as one logged batch; invalid ones are reported in `failed`. */
  insertMany(collection: string, bodies: readonly unknown[]): Promise<BulkResult> {
    return this.run(
      collection,
      bodies.map((body) => ({ kind: 'insert' as const, body })),
    );
  }

  /** Runs a bulk request. Resolves once the successful part is durable. */
  async run(collection: string, items: readonly BulkItem[]): Promise<BulkResult> {
    validateCollectionName(collection);
    const failed: BulkFailure[] = [];
    const prepared: Array<Prepared | undefined> = [];
    // The request's body was decoded in the tick that got here: parse the items in a fresh one.
    await yieldToLoop();
    const slicer = new Slicer();
    for (let index = 0; index < items.length; index++) {
      const item = items[index]!;
      try {
        prepared.push(this.prepare(collection, item, index));
      } catch (err) {
        failed.push({ index, id: rawId(item), error: toDbError(err).message });
      }
      if (slicer.counted()) await slicer.pause();
    }
    return this.db.write(async (view) => {
      const effects: Effect[] = [];
      const successful: string[] = [];
      // Items stage into `work`, a fork of the group's view, which the writer then adopts (WorkingView.adopt).
      let work = view.fork();
      for (let start = 0; start < prepared.length; start += BULK_CHUNK) {
        const chunk = prepared.slice(start, start + BULK_CHUNK) as Prepared[];
        // Staged items are let go: the collector then copies only the items still to come, not the whole request.
        prepared.fill(undefined, start, start + chunk.length);
        const out = this.runChunk(work, collection, chunk, failed);
        if ('chunkError' in out) {
          failed.push({
            id: null,
            error:
              `Chunk ${start / BULK_CHUNK + 1} (items ${start + 1}-${start + chunk.length}) failed: ` +
              `${out.chunkError}`,
          });
          // The failed chunk may have staged part of itself: start again from the chunks that succeeded (rare: a bug).
          work = view.fork();
          work.stage(effects);
        } else {
          for (const effect of out.effects) effects.push(effect);
          for (const id of out.ids) successful.push(id);
        }
        await slicer.pause();
      }
      failed.sort((a, b) => (a.index ?? Infinity) - (b.index ?? Infinity));
      // `work` holds exactly `effects` staged over the view: the writer takes it over.
      return { effects, result: { successful, failed }, staged: work };
    });
  }

  /**
   * Stages a chunk's items into `work`. Item errors are recorded per item;
   * anything unexpected fails the chunk, leaving `work` to be rebuilt.
   */
  private runChunk(
    work: WorkingView,
    collection: string,
    chunk: readonly Prepared[],
    failed: BulkFailure[],
  ): { effects: Effect[]; ids: string[] } | { chunkError: string } {
    const effects: Effect[] = [];
    const ids: string[] = [];
    const itemFailures: BulkFailure[] = [];
    // One list for every item's own effects (stage() keeps no reference to it).
    const own: Effect[] = [];
    try {
      for (const item of chunk) {
        own.length = 0;
        try {
          ids.push(this.apply(work, collection, item, own));
        } catch (err) {
          if (!(err instanceof DbError)) throw err;
          itemFailures.push({ index: item.index, id: failedId(item), error: err.message });
          continue;
        }
        const marked = markNoRipple(own, item.bypassRipple);
        work.stage(marked);
        for (const effect of marked) effects.push(effect);
      }
    } catch (err) {
      return { chunkError: (err as Error).message };
    }
    failed.push(...itemFailures);
    return { effects, ids };
  }

  private apply(view: WorkingView, collection: string, item: Prepared, effects: Effect[]): string {
    switch (item.kind) {
      case 'new':
        return this.records.insertMade(view, collection, item.record, item.body, effects);
      case 'insert':
        return this.records.insertInto(view, collection, item.p, effects, item.freshId);
      case 'update':
        this.records.updateIn(view, collection, item.id, item.p, effects);
        return item.id;
      case 'delete':
        this.records.deleteIn(view, collection, item.id, effects);
        return item.id;
    }
  }

  private prepare(collection: string, item: BulkItem, index: number): Prepared {
    const bypassRipple = item.bypassRipple === true;
    switch (item.kind) {
      case 'insert': {
        // A new id is made here, outside the writer (one the alias replaces is simply not used).
        const record = this.records.makeNew(collection, item.body);
        if (record) return { kind: 'new', index, record, body: item.body, bypassRipple };
        const prepared = this.records.prepare(item.body);
        return prepared.id === undefined
          ? { kind: 'insert', index, p: prepared, bypassRipple, freshId: this.db.ids.next() }
          : { kind: 'insert', index, p: prepared, bypassRipple };
      }
      case 'update':
        return { kind: 'update', index, id: validateId(item.id), p: this.records.prepare(item.body), bypassRipple };
      case 'delete':
        return { kind: 'delete', index, id: validateId(item.id), bypassRipple };
    }
  }
}

/** The id a failed item is reported under: the one it named, never one made for it. */
function failedId(item: Prepared): string | null {
  if (item.kind === 'new') return null;
  return item.kind === 'insert' ? (item.p.id ?? null) : item.id;
}

function rawId(item: BulkItem): string | null {
  if (item.kind !== 'insert') return typeof item.id === 'string' ? item.id : null;
  const id = item.body !== null && typeof item.body === 'object' ? (item.body as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : null;
}
