/**
 * The request members HttpRequest and SWR share (`url`, `method`,
 * `headers`, `body`, `timeout_seconds`), compiled at save and resolved
 * per call into an outbound request, and what a response becomes in a
 * working record.
 *
 * - `timeout_seconds`: default 30, at most 300 (a number or a placeholder).
 * - `body`: a string is sent as it is; any other JSON value is sent as JSON
 *   with `content-type: application/json` unless the headers set one.
 * - A response body is parsed when its content type is JSON
 *   (`application/json`, `*+json`) and is valid JSON; otherwise it is the
 *   text (UTF-8). Bodies larger than 10 MiB fail the step.
 */
import { fromJson, isPlainObject, isTypedWrapper, toJson, type Fields, type Value } from '../../../engine/index.js';
import { InvalidInput } from '../../../errors.js';
import { outboundFetch, type OutboundResponse } from '../../../outbound/index.js';
import type { Template } from '../../template.js';
import type { Execution, MemberReader, Row } from '../step.js';

export const DEFAULT_STEP_TIMEOUT_SECONDS = 30;
export const MAX_STEP_TIMEOUT_SECONDS = 300;

export interface RequestMembers {
  readonly url: Template;
  readonly method?: Template;
  readonly headers?: Template;
  readonly body?: Template;
  readonly timeout?: Template;
}

export function compileRequestMembers(m: MemberReader): RequestMembers {
  const method = m.optionalTemplate('method');
  const headers = m.optionalTemplate('headers');
  const body = m.optionalTemplate('body');
  const timeout = m.optionalTemplate(['timeout_seconds', 'timeout_secs']);
  return { url: m.template('url'), ...(method ? { method } : {}), ...(headers ? { headers } : {}), ...(body ? { body } : {}), ...(timeout ? { timeout } : {}) };
}

export interface ResolvedRequest {
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
export function resolveRequest(cfg: RequestMembers, row: Row | undefined, x: Execution, step: string): ResolvedRequest {
  const url = x.text(cfg.url, row, 'url');
  const method = cfg.method ? x.text(cfg.method, row, 'method').toUpperCase() : 'GET';
  const headers = resolveHeaders(cfg.headers ? x.resolve(cfg.headers, row) : undefined, step);
  let body: string | undefined;
  if (cfg.body) {
    const raw = x.resolve(cfg.body, row);
    if (raw !== null && raw !== undefined) {
      if (typeof raw === 'string') body = raw;
      else {
        body = toJson(raw);
        if (!('content-type' in headers)) headers['content-type'] = 'application/json';
      }
    }
  }
  const ownTimeoutMs = resolveTimeout(cfg.timeout ? x.resolve(cfg.timeout, row) : undefined, step) * 1000;
  const timeoutMs = Math.max(1, Math.min(ownTimeoutMs, x.remainingMs()));
  return { url, method, headers, ...(body !== undefined ? { body } : {}), timeoutMs, ownTimeoutMs };
}

function resolveHeaders(raw: unknown, step: string): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (!isPlainObject(raw) || isTypedWrapper(raw)) throw new InvalidInput(`${step} 'headers' must be an object of header names to strings`);
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(raw)) {
    const value = isTypedWrapper(v) ? v.value : v;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new InvalidInput(`${step} header '${name.slice(0, 64)}' must be a string`);
    }
    out[name.toLowerCase()] = String(value);
  }
  return out;
}

function resolveTimeout(raw: unknown, step: string): number {
  if (raw === undefined || raw === null) return DEFAULT_STEP_TIMEOUT_SECONDS;
  const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0 || n > MAX_STEP_TIMEOUT_SECONDS) {
    throw new InvalidInput(`${step} 'timeout_seconds' must be a number of seconds above 0 and at most ${MAX_STEP_TIMEOUT_SECONDS}`);
  }
  return n;
}

/** Sends a resolved request under the policy in force (settings and proxy variables). */
export function send(req: ResolvedRequest, x: Execution): Promise<OutboundResponse> {
  return outboundFetch(req.url, { method: req.method, headers: req.headers, ...(req.body !== undefined ? { body: req.body } : {}), timeoutMs: req.timeoutMs }, x.outbound());
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

/** The body as a value: parsed JSON for a JSON content type (when it parses), else text. */
export function responseBody(res: OutboundResponse): Value {
  const text = decode(res);
  if (JSON_TYPE.test(res.headers['content-type'] ?? '') && text.trim() !== '') {
    try {
      return fromJson(text) as Value;
    } catch {
      return text; // not JSON after all, or a hostile `__proto__` key: kept as text
    }
  }
  return text;
}

function decode(res: OutboundResponse): string {
  const charset = /charset="?([\w-]+)"?/i.exec(res.headers['content-type'] ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(res.body);
  } catch {
    return new TextDecoder('utf-8').decode(res.body);
  }
}

/** Sets `path` in a copy of `row` (objects along the way copied or created). */
export function withField(row: Fields, path: readonly string[], value: Value): Fields {
  const [head, ...rest] = path;
  const current = Object.hasOwn(row, head!) ? row[head!] : undefined;
  const inner = rest.length === 0 ? value : withField(isPlainObject(current) ? (current as Fields) : {}, rest, value);
  return { ...row, [head!]: inner };
}

/** Every working record gains `path` = value; no working record gives one record holding it. */
export function addToRows(rows: readonly Row[], path: readonly string[], value: Value): Row[] {
  return rows.length === 0 ? [withField({}, path, value)] : rows.map((r) => withField(r, path, value));
}
