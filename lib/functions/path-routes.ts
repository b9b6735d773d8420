/**
 * Path-routed functions (protocol.md 2.11, last row): a definition with
 * `http_method` and `http_path` (`/users/:id`) answers `ANY /api/route/...`.
 *
 * Patterns are compiled at save time. Matching (`matchRoute`) follows the
 * rules the examples rely on: the method must match; the segment counts must
 * match; a literal segment must equal the request's segment and a `:name`
 * segment takes any non-empty one as the parameter `name`; segments are
 * percent-decoded after splitting (so `%2F` stays inside its segment), on
 * both sides. Of several matches the pattern with the fewest placeholders
 * wins; then, position by position from the left, the one with a literal
 * where the other has a placeholder; then the smaller `http_path` text (by
 * code unit); then the earlier candidate. One trailing slash is ignored on
 * both sides; there are no wildcards (`*` is a literal). Body parameters
 * override path parameters (`mergeRouteParams`). Pure: no I/O, no state.
 */
import { assertSafeKey, isPlainObject } from '../engine/index.js';
import { InvalidInput } from '../errors.js';
import { atPath, invalidAt, kindOfRaw } from './definition-path.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Characters in one `http_path`. */
export const MAX_ROUTE_PATH_LENGTH = 1_024;
/** Segments in one `http_path`. */
export const MAX_ROUTE_SEGMENTS = 64;

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export type PatternSegment = { readonly literal: string } | { readonly param: string };

export interface PathPattern {
  /** The `http_path` as saved. */
  readonly source: string;
  readonly segments: readonly PatternSegment[];
  /** How many `:name` segments it has. */
  readonly placeholders: number;
  /**
   * The pattern with parameter names erased (`/users/:`): two patterns with
   * one shape match exactly the same paths, which a caller may refuse as a
   * conflict at save time.
   */
  readonly shape: string;
}

export interface RouteCandidate<T> {
  readonly method: HttpMethod;
  readonly pattern: PathPattern;
  readonly value: T;
}

export interface RouteMatch<T> {
  readonly value: T;
  /** Path parameters by name, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
}

/**
 * `http_method` as one of HTTP_METHODS, in any letter case.
 * Throws InvalidInput starting with `where` otherwise.
 */
export function parseHttpMethod(raw: unknown, where = 'http_method'): HttpMethod {
  const method = typeof raw === 'string' ? raw.toUpperCase() : undefined;
  if (method === undefined || !(HTTP_METHODS as readonly string[]).includes(method)) {
    throw invalidAt(
      where,
      `expected one of ${HTTP_METHODS.join(', ')}, got ` +
        `${typeof raw === 'string' ? `'${raw.slice(0, 20)}'` : kindOfRaw(raw)}`,
    );
  }
  return method as HttpMethod;
}

/**
 * Compiles an `http_path`: a string starting with `/`, of non-empty segments,
 * each a literal or `:name` (a letter or `_`, then letters, digits or `_`;
 * not `__proto__`, `constructor` or `prototype`; each name once).
 * Throws InvalidInput starting with `where`.
 */
export function compilePathPattern(httpPath: unknown, where = 'http_path'): PathPattern {
  if (typeof httpPath !== 'string' || !httpPath.startsWith('/')) {
    throw invalidAt(
      where,
      `expected a path starting with '/', such as '/users/:id', got ` +
        `${typeof httpPath === 'string' ? `'${httpPath.slice(0, 40)}'` : kindOfRaw(httpPath)}`,
    );
  }
  if (httpPath.length > MAX_ROUTE_PATH_LENGTH)
    throw invalidAt(where, `${httpPath.length} characters; at most ${MAX_ROUTE_PATH_LENGTH} are allowed`);
  if (/[?#\s]/.test(httpPath)) throw invalidAt(where, 'a path may not hold a query, a fragment or white space');
  const parts = splitPath(httpPath);
  if (parts === undefined) throw invalidAt(where, 'empty path segment (two slashes in a row)');
  if (parts.length > MAX_ROUTE_SEGMENTS)
    throw invalidAt(where, `${parts.length} segments; at most ${MAX_ROUTE_SEGMENTS} are allowed`);
  const names = new Set<string>();
  const segments = parts.map((part): PatternSegment => {
    if (!part.startsWith(':')) return { literal: atPath(where, () => decodeSegment(part)) };
    const name = part.slice(1);
    if (!PARAM_NAME.test(name))
      throw invalidAt(
        where,
        `bad parameter '${part.slice(0, 40)}': a name is a letter or '_' then up to 63 letters, digits or '_'`,
      );
    atPath(where, () => assertSafeKey(name, where));
    if (names.has(name)) throw invalidAt(where, `parameter ':${name}' appears twice`);
    names.add(name);
    return { param: name };
  });
  const shape =
    '/' +
    segments
      .map((s) => ('param' in s ? ':' : s.literal.replaceAll('%', '%25').replaceAll('/', '%2F').replaceAll(':', '%3A')))
      .join('/');
  return Object.freeze({ source: httpPath, segments: Object.freeze(segments), placeholders: names.size, shape });
}

/**
 * The best candidate for `method` and `path` (the part after `/api/route`,
 * a query string allowed and ignored), with its parameters; undefined when
 * none matches, or when the path has an empty segment.
 * Throws InvalidInput for a segment with malformed percent-encoding.
 */
export function matchRoute<T>(
  candidates: Iterable<RouteCandidate<T>>,
  method: string,
  path: string,
): RouteMatch<T> | undefined {
  const parts = splitRequestPath(path);
  if (parts === undefined) return undefined;
  const upper = method.toUpperCase();
  let best: RouteCandidate<T> | undefined;
  for (const candidate of candidates) {
    if (candidate.method !== upper || !fits(candidate.pattern, parts)) continue;
    if (best === undefined || beats(candidate.pattern, best.pattern)) best = candidate;
  }
  if (best === undefined) return undefined;
  const params: Record<string, string> = {};
  best.pattern.segments.forEach((s, i) => {
    if ('param' in s) params[s.param] = parts[i]!;
  });
  return Object.freeze({ value: best.value, params: Object.freeze(params) });
}

/**
 * The call parameters of a routed call: the path parameters, then the body's
 * members over them (the body wins on a collision). `body` may be absent
 * (undefined or null) or a JSON object.
 * Throws InvalidInput for any other body, or a member named `__proto__`,
 * `constructor` or `prototype`.
 */
export function mergeRouteParams(pathParams: Readonly<Record<string, string>>, body: unknown): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...pathParams };
  if (body === undefined || body === null) return merged;
  if (!isPlainObject(body))
    throw new InvalidInput(`A routed function call takes a JSON object of parameters, got ${kindOfRaw(body)}`);
  for (const key of Object.keys(body)) {
    assertSafeKey(key, 'body');
    merged[key] = body[key];
  }
  return merged;
}

/** The segments between slashes, one trailing slash ignored; undefined for an empty segment. "/" has none. */
function splitPath(path: string): string[] | undefined {
  const inner = path.length > 1 && path.endsWith('/') ? path.slice(1, -1) : path.slice(1);
  if (inner === '') return [];
  const parts = inner.split('/');
  return parts.includes('') ? undefined : parts;
}

function splitRequestPath(path: string): string[] | undefined {
  const end = path.search(/[?#]/);
  const bare = end === -1 ? path : path.slice(0, end);
  const parts = splitPath(bare.startsWith('/') ? bare : `/${bare}`);
  return parts?.map(decodeSegment);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new InvalidInput(`Malformed percent-encoding in path segment '${segment.slice(0, 40)}'`);
  }
}

function fits(pattern: PathPattern, parts: readonly string[]): boolean {
  if (pattern.segments.length !== parts.length) return false;
  return pattern.segments.every((s, i) => 'param' in s || s.literal === parts[i]);
}

/** True when `a` is a better match than `b` for the same path (see the header); never for equal patterns. */
function beats(a: PathPattern, b: PathPattern): boolean {
  if (a.placeholders !== b.placeholders) return a.placeholders < b.placeholders;
  for (let i = 0; i < a.segments.length; i++) {
    const aParam = 'param' in a.segments[i]!;
    if (aParam !== 'param' in b.segments[i]!) return !aParam;
  }
  return a.source < b.source;
}
