/**
 * What TextSearch, VectorSearch and HybridSearch share: their members map
 * onto a search body (protocol.md 2.9), parsed by the engine's `parseSearch`
 * (at save when nothing holds a placeholder), run through `x.session.search`
 * (so a transactional function searches its own staged writes), and each
 * hit becomes a working record: the record plus `_score` (the shape the
 * TypeScript client gives hybrid hits).
 *
 * Rust sends `options` (an object) next to the query; its members are read
 * as search-body members (`limit`, `fuzzy`, `fields`, `min_score`,
 * `vector_field`, `filters`...), with `threshold` for `vector_threshold`,
 * and `collection` when the step has none. Unknown option names are
 * ignored, as unknown step members are. A step with no collection anywhere
 * is refused at save: a search needs a collection to search.
 */
import { isPlainObject, isTypedWrapper, parseSearch, type SearchRequest } from '../../../engine/index.js';
import { InvalidInput } from '../../../errors.js';
import { atPath } from '../../definition-path.js';
import { isConstant, isHostileName, type Template } from '../../templates/index.js';
import { checkCollection } from './collection-member.js';
import type { Execution, MemberNames, MemberReader, Row } from '../step.js';

/** Search-body members an `options` object may carry (step-level names map onto them). */
const OPTION_KEYS = new Set(['language', 'case_sensitive', 'fuzzy', 'enable_stemming', 'boost_exact', 'min_score', 'max_edit_distance',
  'fields', 'weights', 'limit', 'vector_field', 'vector_metric', 'vector_k', 'vector_threshold', 'text_weight', 'vector_weight',
  'select_fields', 'exclude_fields', 'filters']);
const OPTION_ALIASES: Readonly<Record<string, string>> = { threshold: 'vector_threshold' };

/** One search-body member and where it comes from in the step. */
export interface SearchPart {
  /** The search-body member (`query`, `vector`, `limit`...). */
  readonly body: string;
  /** The step's spellings of it, canonical first. */
  readonly names: MemberNames;
  readonly required?: boolean;
}

export interface SearchConfig {
  readonly collection: Template;
  /** Present when nothing held a placeholder: parsed once at save. */
  readonly parsed?: SearchRequest;
  readonly parts: readonly (readonly [string, Template])[];
  readonly options?: Template;
}

export function compileSearch(m: MemberReader, parts: readonly SearchPart[]): SearchConfig {
  const compiled: (readonly [string, Template])[] = [];
  for (const part of parts) {
    const t = part.required ? m.template(part.names) : m.optionalTemplate(part.names);
    if (t !== undefined) compiled.push([part.body, t]);
  }
  const options = m.optionalTemplate('options');
  if (options && isConstant(options) && !isPlainObject(options.v)) m.fail('must be an object of search options', 'options');
  const collection = m.optionalTemplate('collection') ?? optionCollection(m, options);
  checkCollection(collection, m.has('collection') ? `${m.path}.collection` : `${m.path}.options.collection`);
  const config: SearchConfig = { collection, parts: compiled, ...(options ? { options } : {}) };
  const allConstant = compiled.every(([, t]) => isConstant(t)) && (!options || isConstant(options));
  if (allConstant) return { ...config, parsed: atPath(m.path, () => parseSearch(body(config, (t) => (t as { v: unknown }).v))) };
  // Check what is known now; placeholders stand out until the call.
  const constantsOnly: SearchConfig = { ...config, parts: compiled.filter(([, t]) => isConstant(t)) };
  if (!options || isConstant(options)) {
    const known = body(constantsOnly, (t) => (t as { v: unknown }).v);
    atPath(m.path, () => parseSearch({ ...known, query: typeof known.query === 'string' && known.query !== '' ? known.query : 'placeholder' }));
  }
  return config;
}

export async function runSearchStep(cfg: SearchConfig, rows: readonly Row[], x: Execution): Promise<Row[]> {
  const row = rows[0];
  const req = cfg.parsed ?? parseSearch(body(cfg, (t) => x.resolve(t, row)));
  const { results } = await x.session.search(x.text(cfg.collection, row, 'collection'), req);
  return results.map((hit) => ({ ...hit.record, _score: hit.score }));
}

function optionCollection(m: MemberReader, options: Template | undefined): Template {
  if (options && isConstant(options) && isPlainObject(options.v) && typeof options.v.collection === 'string' && options.v.collection !== '') {
    return { k: 'const', v: options.v.collection };
  }
  if (options && options.k === 'object') {
    const entry = options.entries.find(([key]) => key === 'collection');
    if (entry) return entry[1];
  }
  return m.fail("missing required member 'collection' (a search needs a collection; Rust's form may give it as options.collection)");
}

/** The search body: the step's members, then the options under their body names (the step's own members win). */
function body(cfg: SearchConfig, value: (t: Template) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  if (cfg.options) {
    const options = value(cfg.options);
    if (options !== undefined && options !== null && !isPlainObject(options)) throw new InvalidInput("'options' must resolve to an object of search options");
    for (const [key, v] of Object.entries(options ?? {})) {
      const name = OPTION_ALIASES[key] ?? key;
      if (!isHostileName(key) && OPTION_KEYS.has(name) && v !== null && v !== undefined) out[name] = v;
    }
  }
  for (const [key, t] of cfg.parts) {
    const v = unwrapVector(value(t));
    if (v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0 && key === 'vector')) out[key] = v;
  }
  return out;
}

/** A `{type: "Vector", value: [...]}` parameter searches like the bare array. */
function unwrapVector(v: unknown): unknown {
  return isTypedWrapper(v) && (v.type === 'Vector' || v.type === 'Array') ? v.value : v;
}
