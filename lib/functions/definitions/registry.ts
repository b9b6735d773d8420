/**
 * Stored-function definitions: saved, listed, replaced and deleted, and
 * kept compiled in memory.
 *
 * Storage: one record per function in the internal collection `__functions`
 * (`__` makes it internal: hidden by `exclude_internal`), written through
 * the engine like any record. That rides the existing machinery with no new
 * code: the log makes it durable, snapshots and recovery bring it back after
 * a restart, ripples replicate it, and the commit listener tells every node
 * when to recompile. The definition is kept as exact JSON text in one string
 * field, so it comes back exactly as saved (a typed wrapper or a Parameter
 * reference inside a definition is never read as a typed record value).
 *
 * Replacing keeps a best-effort snapshot of the previous definition in
 * `__function_history` (product.md: not guaranteed, no endpoint reads it).
 */
import { Conflict, InvalidInput, NotFound } from '../../errors.js';
import { fromJson, isPlainObject, toJson, type Fields, type LoggedBatch } from '../../engine/index.js';
import { compileDefinition, type CompiledFunction, type CompileOptions } from '../compiler/index.js';
import type { FunctionEngine } from '../services.js';

export const FUNCTIONS_COLLECTION = '__functions';
export const FUNCTION_HISTORY_COLLECTION = '__function_history';
/** Collections only admins may read or write as records (the definitions run with instance-wide rights). */
export const ADMIN_ONLY_COLLECTIONS: ReadonlySet<string> = new Set([FUNCTIONS_COLLECTION, FUNCTION_HISTORY_COLLECTION]);

/** A saved definition: as the client sent it, plus the server-managed members. */
export interface StoredFunction {
  readonly id: string;
  readonly label: string;
  readonly definition: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Undefined when the stored definition does not compile (`error` says why). */
  readonly compiled?: CompiledFunction;
  readonly error?: string;
}

/** Where a failed best-effort history snapshot is reported. */
export type RegistryWarn = (message: string, cause: unknown) => void;

export class FunctionRegistry {
  private byId = new Map<string, StoredFunction>();
  private byLabel = new Map<string, StoredFunction>();
  private stale = true;
  /** The stored document text each loaded definition came from. */
  private documents = new WeakMap<StoredFunction, string>();
  /** Saves run one at a time, so "label already exists" is decided against every earlier save. */
  private saving: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly engine: FunctionEngine,
    private readonly warn: RegistryWarn = () => {},
    /** Save-time checks that depend on the server (the `{{env.NAME}}` allow-list). */
    private readonly compileOptions: CompileOptions = {},
  ) {
    engine.onCommit((batch) => {
      if (touchesFunctions(batch)) this.stale = true;
    });
  }

  /** Every definition, optionally only those carrying at least one of `tags`. */
  list(tags?: readonly string[]): StoredFunction[] {
    const all = [...this.current().byId.values()].sort(
      (a, b) => a.createdAt.localeCompare(b.createdAt) || a.label.localeCompare(b.label),
    );
    if (!tags || tags.length === 0) return all;
    const tagged = (stored: StoredFunction) =>
      Array.isArray(stored.definition.tags) && stored.definition.tags.some((tag) => tags.includes(tag as string));
    return all.filter(tagged);
  }

  /** By id or label (an id wins when a label happens to equal another function's id). */
  find(idOrLabel: string): StoredFunction | undefined {
    const { byId, byLabel } = this.current();
    return byId.get(idOrLabel) ?? byLabel.get(idOrLabel);
  }

  get(idOrLabel: string): StoredFunction {
    const stored = this.find(idOrLabel);
    if (!stored) throw new NotFound(`Function '${idOrLabel}' not found`);
    return stored;
  }

  /** The compiled function to call; 404 when unknown, 400 when its stored definition does not compile. */
  compiled(idOrLabel: string): CompiledFunction {
    const stored = this.get(idOrLabel);
    if (!stored.compiled) throw new InvalidInput(`Function '${stored.label}' cannot run: ${stored.error}`);
    return stored.compiled;
  }

  /** Compiled functions served under /api/route/... */
  routed(): CompiledFunction[] {
    return [...this.current().byId.values()].flatMap((stored) => (stored.compiled?.route ? [stored.compiled] : []));
  }

  /** Create-only: 409 when the label exists. Resolves to the new id. */
  create(raw: unknown): Promise<string> {
    const compiled = compileDefinition(raw, this.compileOptions);
    return this.serialized(async () => {
      if (this.current().byLabel.has(compiled.label))
        throw new Conflict(`A function with label '${compiled.label}' already exists`);
      const now = new Date(this.engine.now()).toISOString();
      const doc = { definition: withoutManaged(raw as Record<string, unknown>), created_at: now, updated_at: now };
      const id = await this.engine
        .session(undefined)
        .insert(FUNCTIONS_COLLECTION, { label: compiled.label, document: toJson(doc) });
      this.stale = true;
      return id;
    });
  }

  /** Replaces the definition of `idOrLabel` (404 when unknown; 409 when renamed onto another function's label). */
  replace(idOrLabel: string, raw: unknown): Promise<StoredFunction> {
    const compiled = compileDefinition(raw, this.compileOptions);
    return this.serialized(async () => {
      const old = this.get(idOrLabel);
      const clash = this.current().byLabel.get(compiled.label);
      if (clash && clash.id !== old.id) throw new Conflict(`A function with label '${compiled.label}' already exists`);
      await this.snapshotHistory(old);
      const doc = {
        definition: withoutManaged(raw as Record<string, unknown>),
        created_at: old.createdAt,
        updated_at: new Date(this.engine.now()).toISOString(),
      };
      await this.engine
        .session(undefined)
        .update(FUNCTIONS_COLLECTION, old.id, { label: compiled.label, document: toJson(doc) });
      this.stale = true;
      return this.get(old.id);
    });
  }

  delete(idOrLabel: string): Promise<StoredFunction> {
    return this.serialized(async () => {
      const old = this.get(idOrLabel);
      await this.engine.session(undefined).delete(FUNCTIONS_COLLECTION, old.id);
      this.stale = true;
      return old;
    });
  }

  private async snapshotHistory(old: StoredFunction): Promise<void> {
    try {
      const doc = { definition: old.definition, created_at: old.createdAt, updated_at: old.updatedAt };
      await this.engine.session(undefined).insert(FUNCTION_HISTORY_COLLECTION, {
        function_id: old.id,
        label: old.label,
        document: toJson(doc),
        replaced_at: new Date(this.engine.now()).toISOString(),
      });
    } catch (err) {
      this.warn(`Could not keep a history snapshot of function '${old.label}'`, err);
    }
  }

  private serialized<R>(work: () => Promise<R>): Promise<R> {
    const run = this.saving.then(work, work);
    this.saving = run.catch(() => undefined);
    return run;
  }

  /** The maps, rebuilt from the stored records when a commit touched them (a save here, a ripple, a restore). */
  private current(): { byId: Map<string, StoredFunction>; byLabel: Map<string, StoredFunction> } {
    if (this.stale) {
      this.stale = false;
      const byId = new Map<string, StoredFunction>();
      const byLabel = new Map<string, StoredFunction>();
      for (const record of this.storedRecords()) {
        // Unchanged definitions keep their compiled form (ajv schemas are not cheap to compile).
        const previous = typeof record.id === 'string' ? this.byId.get(record.id) : undefined;
        const unchanged = previous && this.documents.get(previous) === record.document;
        const stored = unchanged ? previous : readStored(record, this.compileOptions);
        if (!stored) continue;
        this.documents.set(stored, record.document as string);
        byId.set(stored.id, stored);
        byLabel.set(stored.label, stored);
      }
      this.byId = byId;
      this.byLabel = byLabel;
    }
    return { byId: this.byId, byLabel: this.byLabel };
  }

  /** In one piece: definitions are few, and the compiled maps are read synchronously by every call. */
  private storedRecords(): IterableIterator<Fields> {
    return this.engine.records.scan(FUNCTIONS_COLLECTION);
  }
}

/** One stored record back to a definition, compiled; undefined for a record that is not one of ours. */
function readStored(record: Fields, options: CompileOptions): StoredFunction | undefined {
  if (typeof record.id !== 'string' || typeof record.document !== 'string') return undefined;
  let doc: unknown;
  try {
    doc = fromJson(record.document);
  } catch {
    return undefined;
  }
  if (!isPlainObject(doc) || !isPlainObject(doc.definition)) return undefined;
  const definition = doc.definition;
  const label = typeof definition.label === 'string' ? definition.label : undefined;
  if (label === undefined) return undefined;
  const base = {
    id: record.id,
    label,
    definition,
    createdAt: String(doc.created_at ?? ''),
    updatedAt: String(doc.updated_at ?? ''),
  };
  try {
    return { ...base, compiled: compileDefinition(definition, options) };
  } catch (err) {
    return { ...base, error: (err as Error).message };
  }
}

/** The client's own members: server-managed ones it may echo back (id, timestamps) are not stored twice. */
function withoutManaged(raw: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, created_at: _createdAt, updated_at: _updatedAt, ...rest } = raw;
  return rest;
}

function touchesFunctions(batch: LoggedBatch): boolean {
  return batch.effects.some((effect) => {
    switch (effect.kind) {
      case 'put':
      case 'delete':
      case 'restore':
      case 'purge':
        return effect.collection === FUNCTIONS_COLLECTION;
      case 'dropCollection':
        return effect.name === FUNCTIONS_COLLECTION;
      case 'createCollection':
      case 'setCollectionMeta':
        return effect.meta.name === FUNCTIONS_COLLECTION;
      default:
        return false;
    }
  });
}

/** The wire form of a stored definition: as saved, plus id and timestamps (RFC 3339). */
export function definitionToWire(stored: StoredFunction): Record<string, unknown> {
  return { ...stored.definition, id: stored.id, created_at: stored.createdAt, updated_at: stored.updatedAt };
}
