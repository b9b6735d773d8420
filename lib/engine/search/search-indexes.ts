/**
 * Search indexes of each collection: one text index over the records'
 * top-level string fields, and one vector index per vector field (HNSW by
 * default, or `flat` brute force; metric and parameters from the schema's
 * `index` config, else cosine). Built on first use or from the schema, then
 * kept current from the change feed; rebuilt from records after a restart.
 */
import { BruteForceIndex, HnswIndex, TextIndex, type Metric, type VectorIndex } from '../../vector/index.js';
import type { EngineCore } from '../core.js';
import type { CommitInfo } from '../change-feed.js';
import type { LoggedBatch } from '../effects.js';
import { Tagged, type Fields, type Value } from '../values/index.js';

/** A record's vector in `field`: a Vector value or a bare array of numbers. */
export function vectorOf(v: Value | undefined): number[] | undefined {
  const raw = v instanceof Tagged && v.type === 'Vector' ? v.value : v;
  if (!Array.isArray(raw) || raw.length === 0 || !raw.every((x) => typeof x === 'number' && Number.isFinite(x))) return undefined;
  return raw as number[];
}

/** The text a record offers to full-text search: its top-level strings (and string arrays). */
export function textFieldsOf(fields: Fields): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (k === 'id' || k === 'ttl') continue;
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[k] = (v as string[]).join(' ');
  }
  return out;
}

interface VectorConfig { algorithm: 'hnsw' | 'flat'; metric: Metric; m?: number; efConstruction?: number }

interface CollectionSearch {
  text?: TextIndex;
  vectors: Map<string, VectorIndex>;
}

export class SearchIndexes {
  private readonly byCollection = new Map<string, CollectionSearch>();

  constructor(private readonly db: EngineCore) {
    db.onCommit((b, info) => this.follow(b, info));
  }

  private entry(c: string): CollectionSearch {
    let s = this.byCollection.get(c);
    if (!s) this.byCollection.set(c, (s = { vectors: new Map() }));
    return s;
  }

  /** The text index of `c`, built from its records on first use. */
  text(c: string): TextIndex {
    const s = this.entry(c);
    if (!s.text) {
      const idx = new TextIndex();
      for (const [id, e] of this.db.state.collections.get(c)?.records ?? []) idx.add(id, textFieldsOf(e.fields));
      s.text = idx;
    }
    return s.text;
  }

  /** The vector index of `c.field`, built on first use with the schema's config (else HNSW, cosine). */
  vector(c: string, field: string, dimensions: number): VectorIndex {
    const s = this.entry(c);
    let idx = s.vectors.get(field);
    if (idx && idx.dimensions !== dimensions) return idx;
    if (!idx) {
      const cfg = this.configOf(c, field);
      idx = cfg.algorithm === 'flat'
        ? new BruteForceIndex({ dimensions, metric: cfg.metric })
        : new HnswIndex({ dimensions, metric: cfg.metric, ...(cfg.m ? { m: cfg.m } : {}), ...(cfg.efConstruction ? { efConstruction: cfg.efConstruction } : {}) });
      for (const [id, e] of this.db.state.collections.get(c)?.records ?? []) {
        const vec = vectorOf(e.fields[field]);
        if (vec && vec.length === dimensions) idx.add(id, vec);
      }
      s.vectors.set(field, idx);
    }
    return idx;
  }

  configOf(c: string, field: string): VectorConfig {
    const ix = this.db.state.collections.get(c)?.meta.schema?.fields[field]?.index;
    if (ix?.type === 'vector') {
      return { algorithm: ix.algorithm === 'flat' ? 'flat' : 'hnsw', metric: (ix.metric ?? 'cosine') as Metric, m: ix.m, efConstruction: ix.ef_construction };
    }
    return { algorithm: 'hnsw', metric: 'cosine' };
  }

  private follow(b: LoggedBatch, info: CommitInfo): void {
    for (const e of b.effects) {
      // A dropped collection, or a changed schema (index config), starts over on next use.
      if (e.t === 'dropCollection') this.byCollection.delete(e.name);
      if (e.t === 'setCollectionMeta' || e.t === 'createCollection') this.byCollection.delete(e.meta.name);
    }
    for (const ch of info.changes) {
      const s = this.byCollection.get(ch.collection);
      if (!s) continue;
      if (ch.event === 'delete') {
        s.text?.remove(ch.id);
        for (const v of s.vectors.values()) if (v.has(ch.id)) v.remove(ch.id);
        continue;
      }
      s.text?.add(ch.id, textFieldsOf(ch.fields!));
      for (const [field, v] of s.vectors) {
        const vec = vectorOf(ch.fields![field]);
        if (vec && vec.length === v.dimensions) v.add(ch.id, vec);
        else if (v.has(ch.id)) v.remove(ch.id);
      }
    }
  }
}
