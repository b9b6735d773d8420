/**
 * Statements outside a transaction: each write (a many-record one included) is its own durable batch, reads see
 * committed state. A write into a collection with an HNSW graph is answered at the pace the graph takes its vectors
 * in (SearchIndexes.pacer).
 */
import type { BulkItem, BulkResult } from '../records/bulk.js';
import type { UpsertTarget } from '../records/multi-writes.js';
import type { Filter, Query } from '../query/index.js';
import type { SearchRequest } from '../search/search.js';
import type { ActionStep } from '../records/update-actions.js';
import type { Fields } from '../values/index.js';
import type { SearchResult, Session, SessionEngine } from './session.js';

export class AutoCommitSession implements Session {
  readonly transactionId = undefined;

  constructor(private readonly engine: SessionEngine) {}

  findById(collection: string, idOrAlias: string): Fields {
    return this.engine.records.findById(collection, idOrAlias);
  }

  /** A statement of its own reads the committed state: nothing it observes can make it conflict. */
  writesSettled(): undefined {
    return undefined;
  }

  find(collection: string, query: Query): Promise<Fields[]> {
    return this.engine.records.find(collection, query);
  }

  search(collection: string, req: SearchRequest): Promise<SearchResult> {
    return this.engine.search(collection, req);
  }

  /** The collection's size, or a count in slices when some record carries a TTL. */
  count(collection: string): Promise<number> {
    return this.engine.records.count(collection);
  }

  /** In slices of the event loop, over the collection as it was when the read began. */
  distinct(collection: string, field: string, filter?: Filter): Promise<unknown[]> {
    return this.engine.records.distinct(collection, field, filter);
  }

  insert(collection: string, record: unknown, bypassRipple = false): Promise<string> {
    return this.paced(collection, this.engine.records.insert(collection, record, bypassRipple));
  }

  update(collection: string, idOrAlias: string, record: unknown, bypassRipple = false): Promise<Fields> {
    return this.paced(collection, this.engine.records.update(collection, idOrAlias, record, bypassRipple));
  }

  applyActions(
    collection: string,
    idOrAlias: string,
    steps: readonly ActionStep[],
    bypassRipple = false,
  ): Promise<Fields> {
    return this.paced(collection, this.engine.records.applyActions(collection, idOrAlias, steps, bypassRipple));
  }

  delete(collection: string, idOrAlias: string, bypassRipple = false): Promise<string> {
    return this.paced(collection, this.engine.records.delete(collection, idOrAlias, bypassRipple));
  }

  writeMany(collection: string, items: BulkItem[]): Promise<BulkResult> {
    return this.paced(collection, this.engine.bulk.run(collection, items));
  }

  updateWhere(
    collection: string,
    filter: Filter | undefined,
    record: unknown,
    bypassRipple = false,
    limit?: number,
  ): Promise<Fields[]> {
    return this.paced(collection, this.engine.multi.updateWhere(collection, filter, record, bypassRipple, limit));
  }

  applyActionsWhere(
    collection: string,
    filter: Filter | undefined,
    steps: readonly ActionStep[],
    bypassRipple = false,
    limit?: number,
  ): Promise<Fields[]> {
    return this.paced(collection, this.engine.multi.actionsWhere(collection, filter, steps, bypassRipple, limit));
  }

  deleteWhere(collection: string, filter: Filter | undefined, bypassRipple = false): Promise<Fields[]> {
    return this.paced(collection, this.engine.multi.deleteWhere(collection, filter, bypassRipple));
  }

  insertAll(collection: string, records: readonly unknown[], bypassRipple = false): Promise<Fields[]> {
    return this.paced(collection, this.engine.multi.insertAll(collection, records, bypassRipple));
  }

  deleteAll(collection: string, idsOrAliases: readonly string[], bypassRipple = false): Promise<Fields[]> {
    return this.paced(collection, this.engine.multi.deleteAll(collection, idsOrAliases, bypassRipple));
  }

  upsert(collection: string, target: UpsertTarget, record: unknown, bypassRipple = false): Promise<Fields[]> {
    return this.paced(collection, this.engine.multi.upsert(collection, target, record, bypassRipple));
  }

  /** `write`'s answer, once the collection's HNSW graphs have taken in enough of what waits (SearchIndexes.pacer). */
  private paced<T>(collection: string, write: Promise<T>): Promise<T> {
    const pace = this.engine.pacer(collection);
    if (!pace) return write;
    return write.then(async (result) => {
      await pace();
      return result;
    });
  }
}
