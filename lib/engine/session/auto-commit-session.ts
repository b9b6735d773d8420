/** Statements outside a transaction: each write (a many-record one included) is its own durable batch, reads see committed state. */
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

  findById(c: string, idOrAlias: string): Fields {
    return this.engine.records.findById(c, idOrAlias);
  }

  find(c: string, q: Query): Promise<Fields[]> {
    return this.engine.records.find(c, q);
  }

  search(c: string, req: SearchRequest): Promise<SearchResult> {
    return this.engine.search(c, req);
  }

  /** The collection's size, or a count in slices when some record carries a TTL. */
  count(collection: string): Promise<number> {
    return this.engine.records.count(collection);
  }

  /** In slices of the event loop, over the collection as it was when the read began. */
  distinct(collection: string, field: string, filter?: Filter): Promise<unknown[]> {
    return this.engine.records.distinct(collection, field, filter);
  }

  insert(c: string, record: unknown, bypassRipple = false): Promise<string> {
    return this.engine.records.insert(c, record, bypassRipple);
  }

  update(c: string, idOrAlias: string, record: unknown, bypassRipple = false): Promise<Fields> {
    return this.engine.records.update(c, idOrAlias, record, bypassRipple);
  }

  applyActions(c: string, idOrAlias: string, steps: readonly ActionStep[], bypassRipple = false): Promise<Fields> {
    return this.engine.records.applyActions(c, idOrAlias, steps, bypassRipple);
  }

  delete(c: string, idOrAlias: string, bypassRipple = false): Promise<string> {
    return this.engine.records.delete(c, idOrAlias, bypassRipple);
  }

  writeMany(c: string, items: readonly BulkItem[]): Promise<BulkResult> {
    return this.engine.bulk.run(c, items);
  }

  updateWhere(c: string, filter: Filter | undefined, record: unknown, bypassRipple = false, limit?: number): Promise<Fields[]> {
    return this.engine.multi.updateWhere(c, filter, record, bypassRipple, limit);
  }

  applyActionsWhere(c: string, filter: Filter | undefined, steps: readonly ActionStep[], bypassRipple = false, limit?: number): Promise<Fields[]> {
    return this.engine.multi.actionsWhere(c, filter, steps, bypassRipple, limit);
  }

  deleteWhere(c: string, filter: Filter | undefined, bypassRipple = false): Promise<Fields[]> {
    return this.engine.multi.deleteWhere(c, filter, bypassRipple);
  }

  insertAll(c: string, records: readonly unknown[], bypassRipple = false): Promise<Fields[]> {
    return this.engine.multi.insertAll(c, records, bypassRipple);
  }

  deleteAll(c: string, idsOrAliases: readonly string[], bypassRipple = false): Promise<Fields[]> {
    return this.engine.multi.deleteAll(c, idsOrAliases, bypassRipple);
  }

  upsert(c: string, target: UpsertTarget, record: unknown, bypassRipple = false): Promise<Fields[]> {
    return this.engine.multi.upsert(c, target, record, bypassRipple);
  }
}
