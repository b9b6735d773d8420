/**
 * The `index` member of a field definition: which derived index to build.
 *
 * Four kinds, spelled lowercase on the wire exactly as the clients send them
 * (protocol.md 2.2): text, vector, btree and hash. Parsing checks the shape
 * and the closed value sets only; building the index happens elsewhere in the
 * engine. Members given as null count as absent; unknown members are rejected.
 */
import { InvalidInput } from '../../errors.js';
import { isPlainObject } from '../values/index.js';

export type VectorAlgorithm = 'flat' | 'hnsw' | 'ivf';
export type VectorMetric = 'cosine' | 'euclidean' | 'dotproduct';

export interface TextIndexConfig {
  readonly type: 'text';
  readonly language?: string;
  readonly analyzer?: string;
}

export interface VectorIndexConfig {
  readonly type: 'vector';
  readonly algorithm?: VectorAlgorithm;
  readonly metric?: VectorMetric;
  readonly m?: number;
  readonly ef_construction?: number;
  readonly dimensions?: number;
}

export type IndexConfig = TextIndexConfig | VectorIndexConfig | { readonly type: 'btree' } | { readonly type: 'hash' };
export type IndexType = IndexConfig['type'];

const MEMBERS: Readonly<Record<IndexType, readonly string[]>> = {
  text: ['language', 'analyzer'],
  vector: ['algorithm', 'metric', 'm', 'ef_construction', 'dimensions'],
  btree: [],
  hash: [],
};
const ALGORITHMS: readonly VectorAlgorithm[] = ['flat', 'hnsw', 'ivf'];
const METRICS: readonly VectorMetric[] = ['cosine', 'euclidean', 'dotproduct'];

function fail(field: string, why: string): InvalidInput {
  return new InvalidInput(`Field '${field}': ${why}`);
}

function isIndexType(type: unknown): type is IndexType {
  return typeof type === 'string' && Object.hasOwn(MEMBERS, type);
}

/**
 * Parses an `index` member of the field definition of `field`.
 * Throws InvalidInput naming the field for an unknown or wrongly cased index
 * type, an unknown member, or a member outside its value set.
 */
export function parseIndexConfig(raw: unknown, field: string): IndexConfig {
  if (!isPlainObject(raw)) throw fail(field, 'index must be an object such as {"type": "btree"}');
  const type = raw.type;
  if (!isIndexType(type)) {
    const hint = typeof type === 'string' && isIndexType(type.toLowerCase()) ? ' (index types are lowercase)' : '';
    throw fail(
      field,
      `index type must be one of ${Object.keys(MEMBERS).join(', ')}, got ${JSON.stringify(type) ?? 'nothing'}${hint}`,
    );
  }
  for (const key of Object.keys(raw)) {
    if (key !== 'type' && !MEMBERS[type].includes(key)) throw fail(field, `unknown member '${key}' in a ${type} index`);
  }
  const member = (key: string): unknown => (raw[key] === null ? undefined : raw[key]);
  switch (type) {
    case 'text':
      return Object.freeze({
        type,
        ...optional('language', optString(member('language'), field, 'language')),
        ...optional('analyzer', optString(member('analyzer'), field, 'analyzer')),
      });
    case 'vector':
      return Object.freeze({
        type,
        ...optional('algorithm', optChoice(member('algorithm'), ALGORITHMS, field, 'algorithm')),
        ...optional('metric', optChoice(member('metric'), METRICS, field, 'metric')),
        ...optional('m', optPositiveInt(member('m'), field, 'm')),
        ...optional('ef_construction', optPositiveInt(member('ef_construction'), field, 'ef_construction')),
        ...optional('dimensions', optPositiveInt(member('dimensions'), field, 'dimensions')),
      });
    case 'btree':
    case 'hash':
      return Object.freeze({ type });
    default: {
      const never: never = type;
      throw fail(field, `unhandled index type ${String(never)}`);
    }
  }
}

/** `{key: v}` when v is defined, else `{}`; keeps absent members out of the config. */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function optString(value: unknown, field: string, key: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw fail(field, `index ${key} must be a non-empty string`);
  return value;
}

function optChoice<T extends string>(value: unknown, choices: readonly T[], field: string, key: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    throw fail(field, `index ${key} must be one of ${choices.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

function optPositiveInt(value: unknown, field: string, key: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw fail(field, `index ${key} must be a positive integer`);
  return value;
}
