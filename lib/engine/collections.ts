/**
 * Collections and their schemas: create (with an optional schema), info,
 * list, drop, partial schema updates and the primary-key alias. A schema
 * change is a `setCollectionMeta` effect and affects only later writes.
 */
import { Conflict, InvalidInput, NotFound, MESSAGES } from '../errors.js';
import type { EngineCore } from './core.js';
import { indexDefs } from './indexes/index-manager.js';
import { MAX_QUERY_INDEXES } from './limits.js';
import { isInternalCollection, validateCollectionName } from './names.js';
import type { Records } from './records.js';
import { parseSchema, replaceFields, schemaToWire, updateConstraints, type Schema } from './schema/index.js';
import type { CollectionMeta, QueryIndexDef } from './state.js';
import { isPlainObject } from './values/index.js';

export interface CollectionInfo {
  readonly name: string;
  readonly record_count: number;
  readonly created_at: string;
  readonly schema: Record<string, unknown>;
}

/** Members of a create body that are not schema fields. */
const CREATE_KEYS = new Set(['fields', 'version', 'bypass_ripple', 'created_at', 'last_modified', 'primary_key_alias', 'schema']);

export class Collections {
  constructor(private readonly db: EngineCore, private readonly records: Records) {}

  private nowIso(): string { return new Date(this.db.now()).toISOString(); }

  /** Creates a collection; 409 when it exists. `body` is a schema (`{fields}`), `{}` or undefined. */
  async create(name: string, body: unknown): Promise<void> {
    validateCollectionName(name);
    let raw: unknown = body ?? {};
    if (!isPlainObject(raw)) throw new InvalidInput('Collection body must be a JSON object');
    if (isPlainObject(raw.schema)) raw = raw.schema;
    const body2 = raw as Record<string, unknown>;
    for (const key of Object.keys(body2)) {
      if (!CREATE_KEYS.has(key)) throw new InvalidInput(`Unknown member '${key}' in collection body; expected a schema {fields: {...}}`);
    }
    const now = this.nowIso();
    const hasFields = body2.fields !== undefined && body2.fields !== null;
    const schema: Schema | undefined = hasFields || body2.primary_key_alias ? parseSchema(body2, now) : undefined;
    await this.db.write((view) => {
      if (view.collection(name)) throw new Conflict(`Collection '${name}' already exists`);
      const meta: CollectionMeta = schema ? { name, createdAt: now, schema } : { name, createdAt: now };
      return { effects: [{ t: 'createCollection', meta }], result: undefined };
    });
  }

  meta(name: string): CollectionMeta {
    validateCollectionName(name);
    const coll = this.db.state.collections.get(name);
    if (!coll) throw new NotFound(`${MESSAGES.collectionNotFound}: '${name}'`);
    return coll.meta;
  }

  exists(name: string): boolean {
    return this.db.state.collections.has(name);
  }

  info(name: string): CollectionInfo {
    const meta = this.meta(name);
    return {
      name,
      record_count: this.records.count(name),
      created_at: meta.createdAt,
      schema: this.schemaOf(meta),
    };
  }

  /** The wire schema of a collection (an empty schema when none was set). */
  schema(name: string): Record<string, unknown> {
    return this.schemaOf(this.meta(name));
  }

  private schemaOf(meta: CollectionMeta): Record<string, unknown> {
    return schemaToWire(meta.schema ?? parseSchema({}, meta.createdAt)) as unknown as Record<string, unknown>;
  }

  list(excludeInternal: boolean): string[] {
    return [...this.db.state.collections.keys()].filter((n) => !excludeInternal || !isInternalCollection(n)).sort();
  }

  /** Drops a collection and its trash. Irreversible. */
  async drop(name: string): Promise<void> {
    this.meta(name);
    await this.db.write((view) => {
      if (!view.collection(name)) throw new NotFound(`${MESSAGES.collectionNotFound}: '${name}'`);
      return { effects: [{ t: 'dropCollection', name }], result: undefined };
    });
  }

  /** PUT /api/schemas/{c}: `{constraints: {...}}` partial update, or `{fields: {...}}` merge. */
  async updateSchema(name: string, body: unknown): Promise<Schema> {
    if (!isPlainObject(body)) throw new InvalidInput('Schema update body must be a JSON object');
    const keys = Object.keys(body).filter((k) => k !== 'bypass_ripple');
    if (keys.some((k) => k !== 'constraints' && k !== 'fields')) {
      throw new InvalidInput(`Unknown member in schema update; expected {constraints: {...}} or {fields: {...}}`);
    }
    return this.changeSchema(name, (schema, now) => {
      let next = schema;
      if (body.constraints !== undefined) next = updateConstraints(next, body.constraints, now);
      if (body.fields !== undefined) next = replaceFields(next, body.fields, now);
      return next;
    });
  }

  /** Sets the primary-key alias: a field whose value is accepted wherever a record id is. */
  async setPrimaryKeyAlias(name: string, body: unknown): Promise<string> {
    const alias = isPlainObject(body) ? body.alias : undefined;
    if (typeof alias !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(alias) || alias === '__proto__') {
      throw new InvalidInput("Body must be {alias: string} naming a field (letters, digits, '_')");
    }
    await this.changeSchema(name, (schema, now) => ({ ...schema, primary_key_alias: alias, version: schema.version + 1, last_modified: now }));
    return alias;
  }

  /** Creates a query index (btree or hash) on a top-level field; built at once from the records. */
  async createIndex(name: string, body: unknown): Promise<QueryIndexDef> {
    if (!isPlainObject(body)) throw new InvalidInput('Body must be {field, type?: "btree" | "hash"}');
    for (const k of Object.keys(body)) if (k !== 'field' && k !== 'type') throw new InvalidInput(`Unknown member '${k}'; expected field, type`);
    const field = body.field;
    if (typeof field !== 'string' || !/^[A-Za-z_$][A-Za-z0-9_$-]{0,255}$/.test(field) || field === '__proto__' || field === 'constructor') {
      throw new InvalidInput("'field' must name a top-level field");
    }
    const type = body.type ?? 'btree';
    if (type !== 'btree' && type !== 'hash') throw new InvalidInput("'type' must be \"btree\" or \"hash\"");
    this.meta(name);
    const def: QueryIndexDef = { field, type };
    await this.db.write((view) => {
      const meta = view.collection(name);
      if (!meta) throw new NotFound(`${MESSAGES.collectionNotFound}: '${name}'`);
      if ((meta.indexes ?? []).some((d) => d.field === field)) throw new Conflict(`An index on '${field}' already exists in '${name}'`);
      if (indexDefs(meta).length >= MAX_QUERY_INDEXES) {
        throw new InvalidInput(`Collection '${name}' already has ${MAX_QUERY_INDEXES} query indexes, the most allowed; drop one before indexing '${field}'`);
      }
      return { effects: [{ t: 'setCollectionMeta', meta: { ...meta, indexes: [...(meta.indexes ?? []), def] } }], result: undefined };
    });
    return def;
  }

  async dropIndex(name: string, field: string): Promise<void> {
    this.meta(name);
    await this.db.write((view) => {
      const meta = view.collection(name);
      if (!meta || !(meta.indexes ?? []).some((d) => d.field === field)) throw new NotFound(`No index on '${field}' in '${name}'`);
      return { effects: [{ t: 'setCollectionMeta', meta: { ...meta, indexes: (meta.indexes ?? []).filter((d) => d.field !== field) } }], result: undefined };
    });
  }

  private async changeSchema(name: string, change: (schema: Schema, now: string) => Schema): Promise<Schema> {
    this.meta(name);
    const now = this.nowIso();
    return this.db.write((view) => {
      const meta = view.collection(name);
      if (!meta) throw new NotFound(`${MESSAGES.collectionNotFound}: '${name}'`);
      const schema = change(meta.schema ?? parseSchema({}, meta.createdAt), now);
      return { effects: [{ t: 'setCollectionMeta', meta: { ...meta, schema } }], result: schema };
    });
  }
}
