/**
 * The key-value store: values with optional TTLs, batch get/set/delete,
 * an unanchored regular-expression search over keys, and links between keys
 * and records. Every change is an effect in the log, so KV data is durable
 * and replicated like records; expiry follows the injectable clock.
 */
import { InvalidInput, NotFound } from '../../errors.js';
import type { EngineCore } from '../core.js';
import type { Effect } from '../write/effects.js';
import { validateId } from '../records/ids.js';
import { validateCollectionName } from '../collections/names.js';
import type { Pattern } from '../pattern/index.js';
import type { KvEntry } from '../write/state.js';
import { collectDue, writeInChunks } from '../expiry/sweep.js';
import { sortInSlices } from '../query/index.js';
import { Slicer } from '../time/slices.js';
import { resolveTtl } from '../time/ttl.js';
import { bareValue, fieldFromWire, type Value } from '../values/index.js';

export const MAX_KEY_LENGTH = 1024;
/** Keys looked at between looks at the clock while finding. */
const FIND_CHECK_EVERY = 256;
/** Array.prototype.sort's default order: by UTF-16 code units. */
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export const VALUES_RULE = "'values' must be an array as long as 'keys'";

export function validateKvKey(key: unknown): string {
  if (typeof key !== 'string' || key.length === 0) throw new InvalidInput('KV key must be a non-empty string');
  if (key.length > MAX_KEY_LENGTH) throw new InvalidInput(`KV key longer than ${MAX_KEY_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key)) throw new InvalidInput('KV key must not contain control characters');
  return key;
}

export class KvStore {
  constructor(private readonly db: EngineCore) {}

  private live(key: string, includeExpired = false): KvEntry | undefined {
    const entry = this.db.state.kv.get(key);
    if (!entry) return undefined;
    if (!includeExpired && entry.expiresAt !== undefined && entry.expiresAt <= this.db.now()) return undefined;
    return entry;
  }

  /** `ttl` is a TTL as sent (seconds, a duration such as "5m", or an RFC 3339 instant). */
  private expiry(ttl: unknown): number | undefined {
    if (ttl === undefined || ttl === null) return undefined;
    return resolveTtl(ttl, this.db.now(), false).expiresAt;
  }

  /** Stores a wire value (typed wrappers kept as their type) with an optional TTL. Durable on return. */
  async set(key: string, wireValue: unknown, ttl?: unknown, bypassRipple = false): Promise<void> {
    validateKvKey(key);
    const value = fieldFromWire(wireValue === undefined ? null : wireValue, key);
    const expiresAt = this.expiry(ttl);
    const effect: Effect = {
      kind: 'kvSet',
      key,
      value,
      ...(expiresAt !== undefined ? { expiresAt } : {}),
      ...(bypassRipple ? { noRipple: true as const } : {}),
    };
    await this.db.write(() => ({ effects: [effect], result: undefined }));
  }

  /** The stored value. NotFound when absent or expired. */
  get(key: string): Value {
    validateKvKey(key);
    const entry = this.live(key);
    if (!entry) throw new NotFound(`Key '${key}' not found`);
    return entry.value;
  }

  /** The live entry (value and expiry), undefined when absent or expired. */
  entry(key: string): KvEntry | undefined {
    validateKvKey(key);
    return this.live(key);
  }

  /*
   * Check-and-set operations for the caching and concurrency steps
   * (idempotency claims, rate counters, locks). Each decides and writes in
   * ONE operation of the single writer, against the writer's view (the
   * committed state plus the earlier writes of its group), so two concurrent
   * callers can never both see "absent" or both take the last slot.
   * An entry whose expiry has passed counts as absent.
   */

  /**
   * Stores the value only when the key has no live entry. Durable on return.
   * `{created: true}`, or `{created: false, value}` with the live value found.
   */
  async setIfAbsent(
    key: string,
    wireValue: unknown,
    ttl?: unknown,
  ): Promise<{ created: true } | { created: false; value: Value }> {
    validateKvKey(key);
    const value = fieldFromWire(wireValue === undefined ? null : wireValue, key);
    const expiresAt = this.expiry(ttl);
    return this.db.write<{ created: true } | { created: false; value: Value }>((view) => {
      const found = liveIn(view.kvEntry(key), this.db.now());
      if (found) return { effects: [], result: { created: false, value: found.value } };
      const effect: Effect = { kind: 'kvSet', key, value, ...(expiresAt !== undefined ? { expiresAt } : {}) };
      return { effects: [effect], result: { created: true } };
    });
  }

  /**
   * Adds one to the integer counter under `key` unless it already reached
   * `limit` (a missing or expired counter is 0). A new counter expires at
   * `expiresAt` (epoch ms); an existing one keeps its expiry. Returns the
   * count after the call and whether it was incremented. Refused (400) when
   * the key holds something other than a non-negative integer.
   */
  async incrementBelow(
    key: string,
    limit: number,
    expiresAt: number,
  ): Promise<{ count: number; incremented: boolean }> {
    validateKvKey(key);
    return this.db.write<{ count: number; incremented: boolean }>((view) => {
      const found = liveIn(view.kvEntry(key), this.db.now());
      const count = found ? found.value : 0;
      if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0)
        throw new InvalidInput(`KV key '${key}' does not hold a counter`);
      if (count >= limit) return { effects: [], result: { count, incremented: false } };
      const effect: Effect = { kind: 'kvSet', key, value: count + 1, expiresAt: found?.expiresAt ?? expiresAt };
      return { effects: [effect], result: { count: count + 1, incremented: true } };
    });
  }

  /** Deletes the key when it has a live entry whose value passes `test` (a pure check, run in the writer). */
  async deleteIf(key: string, test: (value: Value) => boolean): Promise<boolean> {
    validateKvKey(key);
    return this.db.write((view) => {
      const found = liveIn(view.kvEntry(key), this.db.now());
      if (!found || !test(found.value)) return { effects: [], result: false };
      return { effects: [{ kind: 'kvDelete', key }], result: true };
    });
  }

  async delete(key: string, bypassRipple = false): Promise<boolean> {
    validateKvKey(key);
    return this.db.write((view) => {
      if (!view.kvEntry(key)) return { effects: [], result: false };
      return {
        effects: [{ kind: 'kvDelete', key, ...(bypassRipple ? { noRipple: true as const } : {}) }],
        result: true,
      };
    });
  }

  async clear(): Promise<number> {
    const count = this.db.state.kv.size;
    await this.db.write(() => ({ effects: [{ kind: 'kvClear' }], result: undefined }));
    return count;
  }

  /** Raw stored values of `keys` (see parseKvKeys), in order; null for missing or expired keys. */
  batchGet(keys: readonly string[]): Array<unknown> {
    return keys.map((k) => {
      const e = this.live(k);
      return e ? bareValue(e.value) : null;
    });
  }

  /** One write for all keys (see parseKvKeys), the i-th wire value under the i-th key, with one TTL for all. */
  async batchSet(
    keys: readonly string[],
    wireValues: readonly unknown[],
    ttl?: unknown,
  ): Promise<Array<[string, boolean]>> {
    if (wireValues.length !== keys.length) throw new InvalidInput(VALUES_RULE);
    const expiresAt = this.expiry(ttl);
    const effects: Effect[] = keys.map((key, i) => ({
      kind: 'kvSet',
      key,
      value: fieldFromWire(wireValues[i] ?? null, key),
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    }));
    await this.db.write(() => ({ effects, result: undefined }));
    return keys.map((k) => [k, true]);
  }

  async batchDelete(keys: readonly string[]): Promise<Array<[string, boolean]>> {
    return this.db.write((view) => {
      const out: Array<[string, boolean]> = [];
      const effects: Effect[] = [];
      const seen = new Set<string>();
      for (const key of keys) {
        const exists = !seen.has(key) && view.kvEntry(key) !== undefined;
        seen.add(key);
        if (exists) effects.push({ kind: 'kvDelete', key });
        out.push([key, exists]);
      }
      return { effects, result: out };
    });
  }

  /**
   * The entries whose key `re` matches (every entry without one), by key, in
   * slices of the event loop: a pattern over a million keys holds no other
   * request. Each entry is read as it is when the walk reaches it. The pattern
   * runs on the linear-time engine (compile it with requirePattern). `page`
   * keeps only keys `keep` accepts, sorting after `after`, and stops at `limit`.
   */
  async find(
    re: Pattern | undefined,
    includeExpired: boolean,
    page: { after?: string; limit?: number; keep?: (key: string) => boolean } = {},
  ): Promise<Array<{ key: string; value: Value; expires_at?: string }>> {
    const slicer = new Slicer(FIND_CHECK_EVERY);
    const after = page.after;
    const all = [...this.db.state.kv.keys()];
    const keys = await sortInSlices(after === undefined ? all : all.filter((k) => k > after), byCodeUnits, slicer);
    const out: Array<{ key: string; value: Value; expires_at?: string }> = [];
    for (const key of keys) {
      if (page.limit !== undefined && out.length >= page.limit) break;
      if (slicer.counted()) await slicer.pause();
      if (page.keep && !page.keep(key)) continue;
      if (re && !re.test(key)) continue;
      const entry = this.live(key, includeExpired);
      if (!entry) continue;
      out.push(
        entry.expiresAt === undefined
          ? { key, value: entry.value }
          : { key, value: entry.value, expires_at: new Date(entry.expiresAt).toISOString() },
      );
    }
    return out;
  }

  async link(key: string, collection: string, recordId: string, unlink = false): Promise<void> {
    validateKvKey(key);
    validateCollectionName(collection);
    validateId(recordId, 'document_id');
    await this.db.write(() => ({
      effects: [{ kind: unlink ? 'kvUnlink' : 'kvLink', key, collection, id: recordId }],
      result: undefined,
    }));
  }

  links(key: string): Array<{ collection: string; document_id: string }> {
    validateKvKey(key);
    return [...(this.db.state.kvLinks.get(key) ?? [])].map((link) => {
      const index = link.indexOf('\u0000');
      return { collection: link.slice(0, index), document_id: link.slice(index + 1) };
    });
  }

  /**
   * Deletes expired keys (the sweeper), found in slices and deleted in chunks of one durable write each (sweep.ts).
   * Returns how many.
   */
  async sweep(): Promise<number> {
    const now = this.db.now();
    const expired = await collectDue(this.db.state.kv, ([key, e]) =>
      e.expiresAt !== undefined && e.expiresAt <= now ? key : undefined,
    );
    await writeInChunks(this.db, expired, (view, chunk) =>
      chunk
        .filter((k) => {
          const e = view.kvEntry(k);
          return e?.expiresAt !== undefined && e.expiresAt <= now;
        })
        .map((key): Effect => ({ kind: 'kvDelete', key })),
    );
    return expired.length;
  }
}

/** `entry` unless it has expired at `now`. */
function liveIn(entry: KvEntry | undefined, now: number): KvEntry | undefined {
  return entry && (entry.expiresAt === undefined || entry.expiresAt > now) ? entry : undefined;
}

/**
 * Validates a batch's `keys`: an array of valid KV keys, at most `maxKeys`
 * long (the `max_batch_size` setting), checked before any key is looked at.
 * Throws InvalidInput naming `keys`.
 */
export function parseKvKeys(raw: unknown, maxKeys: number): string[] {
  if (!Array.isArray(raw)) throw new InvalidInput("'keys' must be an array of strings");
  if (raw.length > maxKeys)
    throw new InvalidInput(`'keys' has ${raw.length} keys; the maximum batch size is ${maxKeys}`);
  return raw.map(validateKvKey);
}
