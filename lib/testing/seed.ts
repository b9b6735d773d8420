/**
 * Fixtures a test server starts with: collections (schema, indexes,
 * records), key-value entries, stored functions and schedules, given as an
 * object or as a folder of JSON and NDJSON files (integers beyond 2^53 kept
 * exact, as the server reads request bodies). Everything is checked
 * before anything is written, and a shape that cannot be read is an error
 * that says what is expected where.
 *
 * The folder layout:
 *   collections/<name>.json     an array of records, or {schema?, indexes?, records?}
 *   collections/<name>.ndjson   one record per line
 *   kv.json                     {key: value}, or [{key, value, ttl?}]
 *   functions.json              [definition], as POST /api/functions takes
 *   schedules.json              [schedule], as POST /api/schedules takes
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fromJson } from '../engine/index.js';

export type SeedRecord = Readonly<Record<string, unknown>>;

export interface SeedIndex {
  readonly field: string;
  readonly type: 'btree' | 'hash';
}

export interface SeedCollection {
  /** The schema as POST /api/collections/{name} takes it: `{fields: {...}}`. */
  readonly schema?: Readonly<Record<string, unknown>>;
  readonly indexes?: readonly SeedIndex[];
  readonly records?: readonly SeedRecord[];
}

export interface SeedKvEntry {
  readonly key: string;
  readonly value: unknown;
  /** As POST /api/kv/set takes it: seconds, or text such as '10m'. */
  readonly ttl?: number | string;
}

export interface Seed {
  /** Per collection: its records, or its schema, indexes and records. */
  readonly collections?: Readonly<Record<string, readonly SeedRecord[] | SeedCollection>>;
  /** `{key: value}`, or a list of entries for values with a TTL. */
  readonly kv?: Readonly<Record<string, unknown>> | readonly SeedKvEntry[];
  /** Stored function definitions, as POST /api/functions takes them. */
  readonly functions?: readonly SeedRecord[];
  /** Schedules, as POST /api/schedules takes them. */
  readonly schedules?: readonly SeedRecord[];
}

/** A seed read and checked: every part in one shape. */
export interface CheckedSeed {
  readonly collections: ReadonlyArray<{ readonly name: string } & Required<SeedCollection>>;
  readonly kv: readonly SeedKvEntry[];
  readonly functions: readonly SeedRecord[];
  readonly schedules: readonly SeedRecord[];
}

/** A seed that cannot be read: says where and what is expected. */
export class SeedError extends Error {
  override readonly name = 'SeedError';
}

const SEED_MEMBERS = ['collections', 'kv', 'functions', 'schedules'];
const COLLECTION_MEMBERS = ['schema', 'indexes', 'records'];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks a seed object (or the seed read from a folder) and puts it in one shape. */
export function checkSeed(seed: unknown, where = 'seed'): CheckedSeed {
  if (!isObject(seed))
    throw new SeedError(`${where} must be an object {collections?, kv?, functions?, schedules?} or a folder path`);
  for (const member of Object.keys(seed))
    if (!SEED_MEMBERS.includes(member))
      throw new SeedError(`${where}.${member} is not a seed member: use ${SEED_MEMBERS.join(', ')}`);
  return {
    collections: checkCollections(seed.collections, `${where}.collections`),
    kv: checkKv(seed.kv, `${where}.kv`),
    functions: checkList(seed.functions, `${where}.functions`, 'stored function definitions'),
    schedules: checkList(seed.schedules, `${where}.schedules`, 'schedules'),
  };
}

function checkCollections(value: unknown, where: string): CheckedSeed['collections'] {
  if (value === undefined) return [];
  if (!isObject(value))
    throw new SeedError(`${where} must be an object {name: records or {schema?, indexes?, records?}}`);
  return Object.entries(value).map(([name, spec]) => {
    const at = `${where}.${name}`;
    if (Array.isArray(spec)) return { name, schema: {}, indexes: [], records: checkRecords(spec, at) };
    if (!isObject(spec))
      throw new SeedError(`${at} must be an array of records, or an object {schema?, indexes?, records?}`);
    for (const member of Object.keys(spec))
      if (!COLLECTION_MEMBERS.includes(member))
        throw new SeedError(
          `${at}.${member} is not a collection member: use schema, indexes or records (a collection given as an ` +
            `object holds its records under records)`,
        );
    if (spec.schema !== undefined && !isObject(spec.schema))
      throw new SeedError(`${at}.schema must be an object, as POST /api/collections/{name} takes it: {fields: {...}}`);
    return {
      name,
      schema: spec.schema ?? {},
      indexes: checkIndexes(spec.indexes, `${at}.indexes`),
      records: spec.records === undefined ? [] : checkRecords(spec.records, `${at}.records`),
    };
  });
}

function checkRecords(value: unknown, where: string): SeedRecord[] {
  if (!Array.isArray(value)) throw new SeedError(`${where} must be an array of records (objects)`);
  value.forEach((record, i) => {
    if (!isObject(record)) throw new SeedError(`${where}[${i}] must be a record (an object)`);
  });
  return value as SeedRecord[];
}

function checkIndexes(value: unknown, where: string): SeedIndex[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new SeedError(`${where} must be an array of {field, type: 'btree' | 'hash'}`);
  return value.map((index, i) => {
    if (!isObject(index) || typeof index.field !== 'string' || (index.type !== 'btree' && index.type !== 'hash'))
      throw new SeedError(`${where}[${i}] must be {field: string, type: 'btree' | 'hash'}`);
    return { field: index.field, type: index.type };
  });
}

function checkKv(value: unknown, where: string): SeedKvEntry[] {
  if (value === undefined) return [];
  if (Array.isArray(value))
    return value.map((entry, i) => {
      if (!isObject(entry) || typeof entry.key !== 'string' || !('value' in entry))
        throw new SeedError(`${where}[${i}] must be {key: string, value, ttl?}`);
      const ttl = entry.ttl;
      if (ttl !== undefined && typeof ttl !== 'number' && typeof ttl !== 'string')
        throw new SeedError(`${where}[${i}].ttl must be seconds or text such as '10m'`);
      return { key: entry.key, value: entry.value, ...(ttl !== undefined ? { ttl } : {}) };
    });
  if (!isObject(value))
    throw new SeedError(`${where} must be an object {key: value}, or an array of {key, value, ttl?}`);
  return Object.entries(value).map(([key, entry]) => ({ key, value: entry }));
}

function checkList(value: unknown, where: string, what: string): SeedRecord[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new SeedError(`${where} must be an array of ${what} (objects)`);
  value.forEach((item, i) => {
    if (!isObject(item)) throw new SeedError(`${where}[${i}] must be an object`);
  });
  return value as SeedRecord[];
}

/** Reads a seed folder (layout at the top of this file); an unknown file is an error naming where it belongs. */
export async function readSeedFolder(dir: string): Promise<CheckedSeed> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new SeedError(`seed folder ${dir} does not exist or is not a folder`);
  const seed: Record<string, unknown> = {};
  const collections: Record<string, unknown> = {};
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name === 'collections') {
      for (const name of (await readdir(file)).sort()) {
        const parsed = path.parse(name);
        if (parsed.ext === '.json') collections[parsed.name] = await readJson(path.join(file, name));
        else if (parsed.ext === '.ndjson') collections[parsed.name] = await readNdjson(path.join(file, name));
        else throw new SeedError(`${path.join(file, name)}: a collection file is <name>.json or <name>.ndjson`);
      }
    } else if (entry.isFile() && ['kv.json', 'functions.json', 'schedules.json'].includes(entry.name)) {
      seed[path.parse(entry.name).name] = await readJson(file);
    } else if (!entry.name.startsWith('.')) {
      throw new SeedError(
        `${file} is not part of a seed folder: records go in collections/<name>.json or .ndjson, key-value ` +
          `entries in kv.json, stored functions in functions.json, schedules in schedules.json`,
      );
    }
  }
  if (Object.keys(collections).length > 0) seed.collections = collections;
  return checkSeed(seed, dir);
}

async function readJson(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8');
  try {
    return fromJson(text);
  } catch (err) {
    throw new SeedError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

async function readNdjson(file: string): Promise<unknown[]> {
  const lines = (await readFile(file, 'utf8')).split('\n');
  const records: unknown[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      records.push(fromJson(line));
    } catch (err) {
      throw new SeedError(`${file}:${i + 1} is not valid JSON: ${(err as Error).message}`);
    }
  });
  return records;
}
