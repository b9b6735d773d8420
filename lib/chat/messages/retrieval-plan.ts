/**
 * How one configured collection is searched for a message: which fields the
 * text search reads and with what weights, which fields hold vectors (the
 * message is embedded and searched against them), and the collection's
 * search options. A field entry is a name, or `{field_name | field,
 * search_options?: {weight?, language?, type?}}`; `type: "vector"` marks a
 * vector field. No text field named means every text field. Collection
 * options (RS spelling): language, case_sensitive, fuzzy_match, min_score,
 * enable_stemming, boost_exact_matches, max_edit_distance, plus `limit`
 * (snippets taken from the collection, default 5).
 */
import { InvalidInput } from '../../errors.js';
import { assertSafeKey, isPlainObject, rejectUnknownMembers } from '../../engine/index.js';

/** One entry of a chat session's `collections`, as the client sent it. */
export interface CollectionConfig {
  readonly collection_name: string;
  /** Field names, or objects `{field_name | field, search_options?}`, as the client sent them. */
  readonly fields: readonly unknown[];
  readonly search_options?: Readonly<Record<string, unknown>>;
}

export interface RetrievalPlan {
  readonly collection: string;
  /** Empty: every text field. */
  readonly textFields: readonly string[];
  readonly weights: Readonly<Record<string, number>>;
  readonly vectorFields: readonly string[];
  readonly language?: string;
  readonly caseSensitive?: boolean;
  readonly fuzzy?: boolean;
  readonly minScore?: number;
  readonly stemming?: boolean;
  readonly boostExact?: boolean;
  readonly maxEditDistance?: number;
  readonly limit: number;
}

export const DEFAULT_SNIPPETS_PER_COLLECTION = 5;
const MAX_SNIPPETS_PER_COLLECTION = 100;

const FIELD_OPTIONS = ['weight', 'language', 'type'] as const;
const COLLECTION_OPTIONS = [
  'language',
  'case_sensitive',
  'fuzzy_match',
  'min_score',
  'enable_stemming',
  'boost_exact_matches',
  'max_edit_distance',
  'limit',
] as const;

const given = (v: unknown) => v !== undefined && v !== null;

function fieldName(entry: unknown, where: string): { name: string; options?: Record<string, unknown> } {
  if (typeof entry === 'string') {
    if (entry === '') throw new InvalidInput(`${where} must not be empty`);
    assertSafeKey(entry, where);
    return { name: entry };
  }
  if (!isPlainObject(entry)) throw new InvalidInput(`${where} must be a field name or {field_name, search_options?}`);
  rejectUnknownMembers(entry, ['field_name', 'field', 'search_options'], where);
  const name = entry.field_name ?? entry.field;
  if (typeof name !== 'string' || name === '') throw new InvalidInput(`${where} needs a 'field_name' string`);
  assertSafeKey(name, where);
  const options = entry.search_options;
  if (!given(options)) return { name };
  if (!isPlainObject(options)) throw new InvalidInput(`${where}.search_options must be an object`);
  rejectUnknownMembers(options, FIELD_OPTIONS, `${where}.search_options`);
  return { name, options };
}

function typed<T>(value: unknown, check: (x: unknown) => boolean, what: string, where: string): T | undefined {
  if (!given(value)) return undefined;
  if (!check(value)) throw new InvalidInput(`${where} must be ${what}`);
  return value as T;
}

const isBool = (x: unknown) => typeof x === 'boolean';
const isFiniteNumber = (x: unknown) => typeof x === 'number' && Number.isFinite(x);

/** Validates `config` (InvalidInput naming `where`) and returns how to search it. */
export function retrievalPlan(config: CollectionConfig, where = config.collection_name): RetrievalPlan {
  const textFields: string[] = [];
  const vectorFields: string[] = [];
  const weights: Record<string, number> = Object.create(null);
  config.fields.forEach((entry, index) => {
    const at = `${where}.fields[${index}]`;
    const { name, options } = fieldName(entry, at);
    const type = typed<string>(options?.type, (x) => typeof x === 'string', 'a string', `${at}.search_options.type`);
    const weight = typed<number>(
      options?.weight,
      (x) => isFiniteNumber(x) && (x as number) >= 0,
      'a number >= 0',
      `${at}.search_options.weight`,
    );
    typed<string>(options?.language, (x) => typeof x === 'string', 'a string', `${at}.search_options.language`);
    if (type !== undefined && type.toLowerCase() === 'vector') vectorFields.push(name);
    else {
      textFields.push(name);
      if (weight !== undefined) weights[name] = weight;
    }
  });
  const options = config.search_options ?? {};
  rejectUnknownMembers(options, COLLECTION_OPTIONS, `${where}.search_options`);
  const at = (name: string) => `${where}.search_options.${name}`;
  const limit = typed<number>(
    options.limit,
    (x) => Number.isInteger(x) && (x as number) >= 1 && (x as number) <= MAX_SNIPPETS_PER_COLLECTION,
    `an integer from 1 to ${MAX_SNIPPETS_PER_COLLECTION}`,
    at('limit'),
  );
  const maxEdit = typed<number>(
    options.max_edit_distance,
    (x) => Number.isInteger(x) && (x as number) >= 0 && (x as number) <= 5,
    'an integer from 0 to 5',
    at('max_edit_distance'),
  );
  const plan: RetrievalPlan = {
    collection: config.collection_name,
    textFields,
    weights,
    vectorFields,
    language: typed<string>(options.language, (x) => typeof x === 'string', 'a string', at('language')),
    caseSensitive: typed<boolean>(options.case_sensitive, isBool, 'true or false', at('case_sensitive')),
    fuzzy: typed<boolean>(options.fuzzy_match, isBool, 'true or false', at('fuzzy_match')),
    minScore: typed<number>(options.min_score, isFiniteNumber, 'a number', at('min_score')),
    stemming: typed<boolean>(options.enable_stemming, isBool, 'true or false', at('enable_stemming')),
    boostExact: typed<boolean>(options.boost_exact_matches, isBool, 'true or false', at('boost_exact_matches')),
    maxEditDistance: maxEdit,
    limit: limit ?? DEFAULT_SNIPPETS_PER_COLLECTION,
  };
  return plan;
}
