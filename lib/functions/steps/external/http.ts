/**
 * The outbound HTTP steps, HttpRequest and SWR, over lib/outbound (host
 * policy, proxies, redirects, size and time bounds) with the policy in
 * force (`run.outbound()`).
 *
 * The request members they share (`url`, `method`, `headers`, `body`,
 * `timeout_seconds`) are compiled at save and resolved per call:
 * - `timeout_seconds`: default 30, at most 300 (a number or a placeholder),
 *   bounded by the call's remaining wall time.
 * - `body`: a string is sent as it is; any other JSON value is sent as JSON
 *   with `content-type: application/json` unless the headers set one.
 * - A response body is parsed when its content type is JSON
 *   (`application/json`, `*+json`) and is valid JSON; otherwise it is the
 *   text (UTF-8). Bodies larger than 10 MiB fail the step.
 */
import { fromJson, isPlainObject, isTypedWrapper, resolveTtl, toJson, type Value } from '../../../engine/index.js';
import { InvalidInput } from '../../../errors.js';
import { outboundFetch, type OutboundResponse } from '../../../outbound/index.js';
import type { KeyValueStore } from '../../services.js';
import type { Template } from '../../template.js';
import { step, type Execution, type MemberReader, type Row } from '../step.js';
import { writeOutput } from '../working-records.js';

export const DEFAULT_STEP_TIMEOUT_SECONDS = 30;
export const MAX_STEP_TIMEOUT_SECONDS = 300;

interface RequestMembers {
  readonly url: Template;
  readonly method?: Template;
  readonly headers?: Template;
  readonly body?: Template;
  readonly timeout?: Template;
}

function compileRequestMembers(members: MemberReader): RequestMembers {
  const method = members.optionalTemplate('method');
  const headers = members.optionalTemplate('headers');
  const body = members.optionalTemplate('body');
  const timeout = members.optionalTemplate(['timeout_seconds', 'timeout_secs']);
  return {
    url: members.template('url'),
    ...(method ? { method } : {}),
    ...(headers ? { headers } : {}),
    ...(body ? { body } : {}),
    ...(timeout ? { timeout } : {}),
  };
}

interface ResolvedRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** `timeout_seconds`, bounded by the call's remaining wall time. */
  readonly timeoutMs: number;
  /** `timeout_seconds` as configured (SWR's background revalidation outlives the call). */
  readonly ownTimeoutMs: number;
}

/** Resolves the members against `row`; bad values are 400s naming the member. */
function resolveRequest(
  config: RequestMembers,
  row: Row | undefined,
  run: Execution,
  stepType: string,
): ResolvedRequest {
  const url = run.text(config.url, row, 'url');
  const method = config.method ? run.text(config.method, row, 'method').toUpperCase() : 'GET';
  const headers = resolveHeaders(config.headers ? run.resolve(config.headers, row) : undefined, stepType);
  let body: string | undefined;
  if (config.body) {
    const raw = run.resolve(config.body, row);
    if (raw !== null && raw !== undefined) {
      if (typeof raw === 'string') body = raw;
      else {
        body = toJson(raw);
        if (!('content-type' in headers)) headers['content-type'] = 'application/json';
      }
    }
  }
  const ownTimeoutMs = resolveTimeout(config.timeout ? run.resolve(config.timeout, row) : undefined, stepType) * 1000;
  const timeoutMs = Math.max(1, Math.min(ownTimeoutMs, run.remainingMs()));
  return { url, method, headers, ...(body !== undefined ? { body } : {}), timeoutMs, ownTimeoutMs };
}

function resolveHeaders(raw: unknown, stepType: string): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (!isPlainObject(raw) || isTypedWrapper(raw)) {
    throw new InvalidInput(`${stepType} 'headers' must be an object of header names to strings`);
  }
  const out: Record<string, string> = {};
  for (const [name, given] of Object.entries(raw)) {
    const value = isTypedWrapper(given) ? given.value : given;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new InvalidInput(`${stepType} header '${name.slice(0, 64)}' must be a string`);
    }
    out[name.toLowerCase()] = String(value);
  }
  return out;
}

function resolveTimeout(raw: unknown, stepType: string): number {
  if (raw === undefined || raw === null) return DEFAULT_STEP_TIMEOUT_SECONDS;
  const seconds = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_STEP_TIMEOUT_SECONDS) {
    throw new InvalidInput(
      `${stepType} 'timeout_seconds' must be a number of seconds above 0 and at most ${MAX_STEP_TIMEOUT_SECONDS}`,
    );
  }
  return seconds;
}

/** Sends a resolved request under the policy in force (settings and proxy variables). */
function send(request: ResolvedRequest, run: Execution): Promise<OutboundResponse> {
  const { url, method, headers, body, timeoutMs } = request;
  return outboundFetch(url, { method, headers, ...(body !== undefined ? { body } : {}), timeoutMs }, run.outbound());
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

/** The body as a value: parsed JSON for a JSON content type (when it parses), else text. */
function responseBody(response: OutboundResponse): Value {
  const text = decode(response);
  if (JSON_TYPE.test(response.headers['content-type'] ?? '') && text.trim() !== '') {
    try {
      return fromJson(text) as Value;
    } catch {
      return text; // not JSON after all, or a hostile `__proto__` key: kept as text
    }
  }
  return text;
}

function decode(response: OutboundResponse): string {
  const charset = /charset="?([\w-]+)"?/i.exec(response.headers['content-type'] ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(response.body);
  } catch {
    return new TextDecoder('utf-8').decode(response.body);
  }
}

interface HttpRequestConfig extends RequestMembers {
  readonly output: readonly string[];
  readonly statusOutput: readonly string[];
  readonly headersOutput: readonly string[];
}

/** `path` with `suffix` appended to its last name: `a.b` -> `a.b_status`. */
function besideOutput(path: readonly string[], suffix: string): readonly string[] {
  return [...path.slice(0, -1), `${path[path.length - 1]!}${suffix}`];
}

/**
 * HttpRequest: one outbound HTTP request. Its output field (default
 * `http_response`) gets the response body itself, as the official examples
 * use it (`KvSet` of `"{{http_response}}"` caches the API's object): the
 * parsed JSON, or the text when the answer is not JSON. The status and the
 * headers go beside it, to `<output>_status` and `<output>_headers` (for
 * `http_response`: `http_response_status`, `http_response_headers`). All
 * three are added to every working record (one record when there is none).
 * A non-2xx answer is an answer; a network failure, a timeout, a refused
 * destination or a body over 10 MiB fails the step. The request goes out
 * once per step, with placeholders resolved against the first working
 * record. It reaches outside, so a transactional function refuses it.
 */
export const httpRequest = step<HttpRequestConfig>({
  type: 'HttpRequest',
  secretMembers: ['headers'],
  access: 'outside',
  compile: (members) => {
    const output = members.optionalFieldPath('output_field') ?? ['http_response'];
    return {
      ...compileRequestMembers(members),
      output,
      statusOutput: besideOutput(output, '_status'),
      headersOutput: besideOutput(output, '_headers'),
    };
  },
  run: async (config, rows, run) => {
    const response = await send(resolveRequest(config, rows[0], run, 'HttpRequest'), run);
    const withBody = writeOutput(rows, config.output, responseBody(response));
    return writeOutput(
      writeOutput(withBody, config.statusOutput, response.status),
      config.headersOutput,
      response.headers,
    );
  },
});

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
interface Fetched {
  readonly entry: SwrEntry;
  readonly cacheable: boolean;
}

const KEY_PREFIX = 'swr:';

/** Fetches in flight, per key-value store (one per database) and key: the single-flight map. */
const inFlight = new WeakMap<KeyValueStore, Map<string, Promise<Fetched>>>();

/**
 * SWR (stale-while-revalidate): a cached outbound GET (or any method).
 *
 * Members: `cache_key`, `ttl` (seconds, a duration such as "15m", or an
 * RFC 3339 instant the entry is fresh until), the request members of
 * HttpRequest, `output_field` (default `response`) and an optional audit
 * `collection`.
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
 * Transactions (product.md): the audit insert goes through `run.session`, so
 * in a transactional function it takes part in the transaction; the HTTP
 * call and the key-value writes go straight to the store and are not
 * rolled back. That is why SWR is a `write` step and not `outside`: a
 * transactional function may hold it.
 */
export const swr = step<SwrConfig>({
  type: 'SWR',
  secretMembers: ['headers'],
  access: 'write',
  compile: (members) => {
    const collection = members.optionalTemplate('collection');
    return {
      ...compileRequestMembers(members),
      cacheKey: members.template('cache_key'),
      ttl: members.template(['ttl', 'ttl_secs']),
      output: members.optionalFieldPath('output_field') ?? ['response'],
      ...(collection ? { collection } : {}),
    };
  },
  run: async (config, rows, run) => {
    const row = rows[0];
    const cacheKey = run.text(config.cacheKey, row, 'cache_key');
    if (cacheKey === '') throw new InvalidInput("SWR 'cache_key' must not be empty");
    const ttl = run.resolve(config.ttl, row);
    resolveTtl(ttl, run.now(), false); // a bad ttl fails now, not in a background revalidation
    const request = resolveRequest(config, row, run, 'SWR');
    const kvKey = KEY_PREFIX + cacheKey;
    const cached = readEntry(run.kv, kvKey);
    let served: SwrEntry;
    let source: 'hit' | 'stale' | 'miss';
    if (cached && cached.expires_at > run.now()) {
      served = cached;
      source = 'hit';
    } else if (cached) {
      served = cached;
      source = 'stale';
      // In the background, with the step's own timeout (the call may end first); a failure keeps the stale entry.
      if (!flights(run.kv).has(kvKey)) {
        void fetchOnce(run, kvKey, { ...request, timeoutMs: request.ownTimeoutMs }, ttl).catch(() => undefined);
      }
    } else {
      served = (await fetchOnce(run, kvKey, request, ttl)).entry;
      source = 'miss';
    }
    if (config.collection) {
      const cachedAt = { type: 'DateTime', value: new Date(served.cached_at).toISOString() };
      const audit = {
        cache_key: cacheKey,
        url: request.url,
        cache: source,
        status: served.status,
        cached_at: cachedAt,
        data: served.data,
      };
      await run.session.insert(run.text(config.collection, row, 'collection'), audit, false);
    }
    return writeOutput(rows, config.output, served.data);
  },
});

function flights(kv: KeyValueStore): Map<string, Promise<Fetched>> {
  let map = inFlight.get(kv);
  if (!map) inFlight.set(kv, (map = new Map()));
  return map;
}

/** The one fetch of `kvKey` in flight, started when there is none; caches a 2xx answer. */
function fetchOnce(run: Execution, kvKey: string, request: ResolvedRequest, ttl: unknown): Promise<Fetched> {
  const kv = run.kv;
  const map = flights(kv);
  const running = map.get(kvKey);
  if (running) return running;
  const flight = (async (): Promise<Fetched> => {
    const response = await send(request, run);
    const at = run.now();
    const expiresAt = resolveTtl(ttl, at, false).expiresAt;
    const entry: SwrEntry = {
      data: responseBody(response),
      status: response.status,
      cached_at: at,
      expires_at: expiresAt,
    };
    const cacheable = response.status >= 200 && response.status < 300;
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
    const entry = fromJson(stored) as Partial<SwrEntry> | null;
    const valid =
      entry &&
      typeof entry === 'object' &&
      typeof entry.cached_at === 'number' &&
      typeof entry.expires_at === 'number' &&
      typeof entry.status === 'number' &&
      'data' in entry;
    if (valid) return entry as SwrEntry;
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
