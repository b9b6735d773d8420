/**
 * Collections and their schemas: create (with an optional schema), info,
 * list, drop, partial schema updates and the primary-key alias. A schema
 * change is a `setCollectionMeta` effect and affects only later writes.
 */
import { Conflict, InvalidInput, NotFound, MESSAGES } from '../../errors.js';
import type { EngineCore } from '../core.js';
import { indexDefs } from '../indexes/index-manager.js';
import { MAX_QUERY_INDEXES } from '../input/limits.js';
import { isInternalCollection, validateCollectionName } from './names.js';
import type { Records } from '../records/records.js';
import { parseSchema, replaceFields, schemaToWire, updateConstraints, type Schema } from '../schema/index.js';
import type { CollectionMeta, QueryIndexDef } from '../write/state.js';

export interface CollectionInfo {
  readonly name: string;
  readonly record_count: number;
  readonly created_at: string;
  readonly schema: Record<string, unknown>;
}

/** A schema as sent on the wire (`{fields, primary_key_alias?, ...}`), parsed against the clock when applied. */
export type SchemaDefinition = Readonly<Record<string, unknown>>;

/** A `PUT /api/schemas/{c}` change: replace constraints and/or field definitions. */
export interface SchemaChange {
  readonly constraints?: unknown;
  readonly fields?: unknown;
}

export class Collections {
  constructor(
    private readonly db: EngineCore,
    private readonly records: Records,
  ) {}

  private nowIso(): string {
    return new Date(this.db.now()).toISOString();
  }

  /** Creates a collection, with a schema when the definition has fields or an alias; 409 when it exists. */
  async create(name: string, definition: SchemaDefinition = {}): Promise<void> {
    validateCollectionName(name);
    const now = this.nowIso();
    const hasFields = definition.fields !== undefined && definition.fields !== null;
    const schema: Schema | undefined =
      hasFields || definition.primary_key_alias ? parseSchema(definition, now) : undefined;
    await this.db.write((view) => {
      if (view.collection(name)) throw new Conflict(`Collection '${name}' already exists`);
      const meta: CollectionMeta = schema ? { name, createdAt: now, schema } : { name, createdAt: now };
      return { effects: [{ kind: 'createCollection', meta }], result: undefined };
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

  async info(name: string): Promise<CollectionInfo> {
    const meta = this.meta(name);
    return {
      name,
      record_count: await this.records.count(name),
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
      return { effects: [{ kind: 'dropCollection', name }], result: undefined };
    });
  }

  /** A partial schema update: `constraints` merged into field definitions, then `fields` replaced. */
  async updateSchema(name: string, change: SchemaChange): Promise<Schema> {
    return this.changeSchema(name, (schema, now) => {
      let next = schema;
      if (change.constraints !== undefined) next = updateConstraints(next, change.constraints, now);
      if (change.fields !== undefined) next = replaceFields(next, change.fields, now);
      return next;
    });
  }

  /** Sets the primary-key alias: a field whose value is accepted wherever a record id is. */
  async setPrimaryKeyAlias(name: string, alias: string): Promise<string> {
    if (!isAliasName(alias)) throw new InvalidInput(ALIAS_RULE);
    await this.changeSchema(name, (schema, now) => ({
      ...schema,
      primary_key_alias: alias,
      version: schema.version + 1,
      last_modified: now,
    }));
    return alias;
  }

  /** Creates a query index (btree or hash) on a top-level field; built at once from the records. */
  async createIndex(name: string, def: QueryIndexDef): Promise<QueryIndexDef> {
    if (!isIndexableField(def.field)) throw new InvalidInput(INDEX_FIELD_RULE);
    const field = def.field;
    this.meta(name);
    await this.db.write((view) => {
      const meta = view.collection(name);
      if (!meta) throw new NotFound(`${MESSAGES.collectionNotFound}: '${name}'`);
      if ((meta.indexes ?? []).some((d) => d.field === field))
        throw new Conflict(`An index on '${field}' already exists in '${name}'`);
      if (indexDefs(meta).length >= MAX_QUERY_INDEXES) {
        throw new InvalidInput(
          `Collection '${name}' already has ${MAX_QUERY_INDEXES} query indexes, the most allowed; drop one before ` +
            `indexing '${field}'`,
        );
      }
      return {
        effects: [{ kind: 'setCollectionMeta', meta: { ...meta, indexes: [...(meta.indexes ?? []), def] } }],
        result: undefined,
      };
    });
    return def;
  }

  async dropIndex(name: string, field: string): Promise<void> {
    this.meta(name);
    await this.db.write((view) => {
      const meta = view.collection(name);
      if (!meta || !(meta.indexes ?? []).some((d) => d.field === field))
        throw new NotFound(`No index on '${field}' in '${name}'`);
      return {
        effects: [
          {
            kind: 'setCollectionMeta',
            meta: { ...meta, indexes: (meta.indexes ?? []).filter((d) => d.field !== field) },
          },
        ],
        result: undefined,
      };
    });
  }

  private async changeSchema(name: string, change: (schema: Schema, now: string) => Schema): Promise<Schema> {
    this.meta(name);
    const now = this.nowIso();
    return this.db.write((view) => {
      const meta = view.collection(name);
      if (!meta) throw new NotFound(`${MESSAGES.collectionNotFound}: '${name}'`);
      const schema = change(meta.schema ?? parseSchema({}, meta.createdAt), now);
      return { effects: [{ kind: 'setCollectionMeta', meta: { ...meta, schema } }], result: schema };
    });
  }
}

/** What an alias must be, said once for the engine and the request parser. */
export const ALIAS_RULE = "Body must be {alias: string} naming a field (letters, digits, '_')";

export function isAliasName(alias: unknown): alias is string {
  return typeof alias === 'string' && /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(alias) && alias !== '__proto__';
}

export const INDEX_FIELD_RULE = "'field' must name a top-level field";

/** A top-level field a query index may cover. */
export function isIndexableField(field: unknown): field is string {
  return (
    typeof field === 'string' &&
    /^[A-Za-z_$][A-Za-z0-9_$-]{0,255}$/.test(field) &&
    field !== '__proto__' &&
    field !== 'constructor'
  );
}
