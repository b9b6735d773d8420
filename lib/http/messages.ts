/**
 * The WebSocket message table (protocol.md §3.4): one line per request type,
 * mapping its payload onto a procedure's raw input, and its result onto the
 * Success `data`. Subscriptions and Hello are the transport's own business.
 */
import type { RawInput } from './procedure.js';

export interface MessageRoute {
  readonly procedure: string;
  readonly toRaw: (p: Record<string, any>) => RawInput;
  readonly toData?: (result: any) => unknown;
}

const raw = (params: Record<string, unknown>, body: unknown = {}, query: Record<string, string> = {}): RawInput => ({
  params: Object.fromEntries(Object.entries(params).map(([k, v]) => [k, v === undefined || v === null ? '' : String(v)])),
  query,
  body,
});

const ripple = (p: Record<string, any>): Record<string, string> => (p.bypass_ripple === true ? { bypass_ripple: 'true' } : {});

const withoutKeys = (p: Record<string, any>, ...keys: string[]) => {
  const out: Record<string, any> = {};
  for (const [k, v] of Object.entries(p)) if (!keys.includes(k)) out[k] = v;
  return out;
};

export const MESSAGES: Readonly<Record<string, MessageRoute>> = {
  FindAll: { procedure: 'records.find', toRaw: (p) => raw({ collection: p.collection }, {}) },
  Query: { procedure: 'records.find', toRaw: (p) => raw({ collection: p.collection }, withoutKeys(p, 'collection')) },
  FindById: { procedure: 'records.findById', toRaw: (p) => raw({ collection: p.collection, id: p.id }) },
  Insert: { procedure: 'records.insert', toRaw: (p) => raw({ collection: p.collection }, p.record, ripple(p)) },
  Update: { procedure: 'records.update', toRaw: (p) => raw({ collection: p.collection, id: p.id }, p.record, ripple(p)) },
  Delete: { procedure: 'records.delete', toRaw: (p) => raw({ collection: p.collection, id: p.id }, {}, ripple(p)) },
  BatchInsert: {
    procedure: 'batch.insert',
    toRaw: (p) => raw({ collection: p.collection }, { inserts: Array.isArray(p.records) ? p.records.map((data: unknown) => ({ data })) : p.records }, ripple(p)),
  },
  BatchUpdate: {
    procedure: 'batch.update',
    toRaw: (p) => raw({ collection: p.collection }, {
      updates: Array.isArray(p.updates) ? p.updates.map((u: unknown) => (Array.isArray(u) ? { id: u[0], data: u[1] } : u)) : p.updates,
    }, ripple(p)),
  },
  BatchDelete: {
    procedure: 'batch.delete',
    toRaw: (p) => raw({ collection: p.collection }, { deletes: Array.isArray(p.ids) ? p.ids.map((id: unknown) => ({ id })) : p.ids }, ripple(p)),
  },
  DistinctValues: { procedure: 'records.distinct', toRaw: (p) => raw({ collection: p.collection, field: p.field }, p.filter === undefined || p.filter === null ? {} : { filter: p.filter }) },
  UpdateWithAction: {
    procedure: 'records.updateAction',
    toRaw: (p) => raw({ collection: p.collection, id: p.id, action: p.action }, { field: p.field, value: p.value ?? null }, ripple(p)),
  },
  CreateCollection: { procedure: 'collections.create', toRaw: (p) => raw({ collection: p.name }, p.schema ?? {}) },
  GetCollections: { procedure: 'collections.list', toRaw: () => raw({}), toData: (r) => r.collections },
  DeleteCollection: { procedure: 'collections.delete', toRaw: (p) => raw({ collection: p.name }) },
  TextSearch: {
    procedure: 'search.query',
    toRaw: (p) => raw({ collection: p.collection }, { query: p.query, ...(p.options ?? {}) }),
    toData: (r) => r.results,
  },
};

/** Chat message types this server knows but does not serve yet. */
export const UNSUPPORTED = new Set(['ChatSend', 'RegisterClientTools', 'ClientToolResult', 'CancelChat', 'RawComplete']);
