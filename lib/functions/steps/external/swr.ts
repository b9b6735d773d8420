/**
 * SWR (stale-while-revalidate): a cached outbound GET (or any method).
 *
 * Members: `cache_key`, `ttl` (seconds, a duration such as "15m", or an
 * RFC 3339 instant the entry is fresh until), the request members of
 * HttpRequest (`url`, `method`, `headers`, `body`, `timeout_seconds`),
 * `output_field` (default `response`) and an optional audit `collection`.
 *
 * - Fresh entry: served, no request.
 * - Stale entry: served at once, and revalidated in the background, at most
 *   one request per key at a time.
 * - No entry: fetched and served; concurrent calls for the same key wait
 *   for that one request (an in-process single-flight map), so a key never
 *   has two fetches in flight.
 * - Only 2xx answers are cached; another answer is served (the step does
 *   not fail, the body is the output) and not cached. A failed revalidation
 *   keeps the stale entry.
 *
 * The output field holds the response body (parsed JSON or text), added to
 * every working record (one record when there is none). The cache lives in
 * the key-value store under `swr:<cache_key>` (a JSON text of `{data,
 * status, cached_at, expires_at}`, times in ms), so it is durable and
 * replicated. With `collection`, each call inserts an audit record
 * `{cache_key, url, cache: "hit"|"stale"|"miss", status, cached_at, data}`.
 *
 * Transactions (product.md): the audit insert goes through `x.session`, so
 * in a transactional function it takes part in the transaction; the HTTP
 * call and the key-value writes go straight to the engine and are not
 * rolled back. That is why SWR is a `write` step and not `outside`: a
 * transactional function may hold it.
 */
import { fromJson, resolveTtl, toJson, type Value } from '../../../engine/index.js';
import type { KeyValueStore } from '../../services.js';
import { InvalidInput } from '../../../errors.js';
import type { Template } from '../../template.js';
import { step, type Execution } from '../step.js';
import { addToRows, compileRequestMembers, resolveRequest, responseBody, send, type RequestMembers, type ResolvedRequest } from './request-members.js';

interface SwrConfig extends RequestMembers {
  readonly cacheKey: Template;
  readonly ttl: Template;
  readonly output: readonly string[];
  readonly collection?: Template;
}

/** A cached answer, as stored. */
interface SwrEntry {
  readonly data: Value;
  readonly status: number;
  readonly cached_at: number;
  readonly expires_at: number;
}

/** What one fetch gave: an entry worth caching (2xx) or an answer served once. */
interface Fetched { readonly entry: SwrEntry; readonly cacheable: boolean }

const KEY_PREFIX = 'swr:';

/** Fetches in flight, per key-value store (one per database) and key: the single-flight map. */
const inFlight = new WeakMap<KeyValueStore, Map<string, Promise<Fetched>>>();

export const swr = step<SwrConfig>({
  type: 'SWR',
  secretMembers: ['headers'],
  access: 'write',
  compile: (m) => {
    const collection = m.optionalTemplate('collection');
    return {
      ...compileRequestMembers(m),
      cacheKey: m.template('cache_key'),
      ttl: m.template(['ttl', 'ttl_secs']),
      output: m.optionalFieldPath('output_field') ?? ['response'],
      ...(collection ? { collection } : {}),
    };
  },
  run: async (cfg, rows, x) => {
    const row = rows[0];
    const cacheKey = x.text(cfg.cacheKey, row, 'cache_key');
    if (cacheKey === '') throw new InvalidInput("SWR 'cache_key' must not be empty");
    const ttl = x.resolve(cfg.ttl, row);
    resolveTtl(ttl, x.now(), false); // a bad ttl fails now, not in a background revalidation
    const req = resolveRequest(cfg, row, x, 'SWR');
    const kvKey = KEY_PREFIX + cacheKey;
    const cached = readEntry(x.kv, kvKey);
    let served: SwrEntry;
    let source: 'hit' | 'stale' | 'miss';
    if (cached && cached.expires_at > x.now()) {
      served = cached;
      source = 'hit';
    } else if (cached) {
      served = cached;
      source = 'stale';
      // In the background, with the step's own timeout (the call may end first); a failure keeps the stale entry.
      if (!flights(x.kv).has(kvKey)) void fetchOnce(x, kvKey, { ...req, timeoutMs: req.ownTimeoutMs }, ttl).catch(() => undefined);
    } else {
      served = (await fetchOnce(x, kvKey, req, ttl)).entry;
      source = 'miss';
    }
    if (cfg.collection) {
      await x.session.insert(x.text(cfg.collection, row, 'collection'), {
        cache_key: cacheKey, url: req.url, cache: source, status: served.status,
        cached_at: { type: 'DateTime', value: new Date(served.cached_at).toISOString() }, data: served.data,
      }, false);
    }
    return addToRows(rows, cfg.output, served.data);
  },
});

function flights(kv: KeyValueStore): Map<string, Promise<Fetched>> {
  let m = inFlight.get(kv);
  if (!m) inFlight.set(kv, (m = new Map()));
  return m;
}

/** The one fetch of `kvKey` in flight, started when there is none; caches a 2xx answer. */
function fetchOnce(x: Execution, kvKey: string, req: ResolvedRequest, ttl: unknown): Promise<Fetched> {
  const map = flights(x.kv);
  const running = map.get(kvKey);
  if (running) return running;
  const kv = x.kv;
  const now = () => x.now();
  const flight = (async (): Promise<Fetched> => {
    const res = await send(req, x);
    const at = now();
    const entry: SwrEntry = { data: responseBody(res), status: res.status, cached_at: at, expires_at: resolveTtl(ttl, at, false).expiresAt };
    const cacheable = res.status >= 200 && res.status < 300;
    if (cacheable) await kv.set(kvKey, toJson(entry));
    return { entry, cacheable };
  })().finally(() => map.delete(kvKey));
  map.set(kvKey, flight);
  return flight;
}

/** The stored entry, or undefined when absent or not an entry (a key written by something else). */
function readEntry(kv: KeyValueStore, kvKey: string): SwrEntry | undefined {
  let stored: Value;
  try {
    stored = kv.get(kvKey);
  } catch {
    return undefined;
  }
  if (typeof stored !== 'string') return undefined;
  try {
    const e = fromJson(stored) as Partial<SwrEntry> | null;
    if (e && typeof e === 'object' && typeof e.cached_at === 'number' && typeof e.expires_at === 'number' && typeof e.status === 'number' && 'data' in e) return e as SwrEntry;
  } catch {
    // not ours: treated as a miss and overwritten by the next fetch
  }
  return undefined;
}

/** Resolves when no SWR fetch caching into `kv` is in flight (tests, shutdown). */
export async function swrSettled(kv: KeyValueStore): Promise<void> {
  const map = inFlight.get(kv);
  while (map && map.size > 0) await Promise.allSettled([...map.values()]);
}

