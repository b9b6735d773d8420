/**
 * Route matching over the raw path: the path is split on literal `/` first
 * and each segment is percent-decoded afterwards, so an encoded `%2F` stays
 * inside its segment (a KV key `a/b` arrives as one segment `a%2Fb`).
 * Routes are tried in table order; literal routes are listed before their
 * parameterised siblings. A last segment `:name+` takes the rest of the path
 * (one or more segments, each decoded, joined by `/`); such routes are tried
 * after the fixed-length ones.
 */
import { InvalidInput, MethodNotAllowed, NotFound } from '../../errors.js';

export interface RouteDef<T> {
  readonly method: string;
  readonly path: string;
  readonly target: T;
}

type Part = { literal: string } | { param: string } | { rest: string };
interface Compiled<T> {
  def: RouteDef<T>;
  parts: Part[];
}

export interface RouteMatch<T> {
  readonly target: T;
  readonly params: Readonly<Record<string, string>>;
  /** The matched route's path pattern, e.g. `/api/find/:collection/:id` (the access log's `route`). */
  readonly route: string;
}

export class Router<T> {
  /**
   * Fixed-length routes by segment count, then by their second segment (`find` in `/api/find/:c/:id`):
   * each list holds, in table order, the routes whose second segment is that literal plus those
   * whose second segment is a parameter (`params`, also the list for any other literal), so a
   * request tries only the routes it could match.
   */
  private readonly bySize = new Map<number, { byLiteral: Map<string, Compiled<T>[]>; params: Compiled<T>[] }>();
  /** Routes ending in a rest parameter, in table order. */
  private readonly withRest: Compiled<T>[] = [];

  constructor(defs: ReadonlyArray<RouteDef<T>>) {
    const fixed: Compiled<T>[] = [];
    for (const def of defs) {
      const parts = def.path
        .split('/')
        .slice(1)
        .map((p): Part => {
          if (p.startsWith(':') && p.endsWith('+')) return { rest: p.slice(1, -1) };
          return p.startsWith(':') ? { param: p.slice(1) } : { literal: p };
        });
      if (parts.some((p) => 'rest' in p)) this.withRest.push({ def, parts });
      else fixed.push({ def, parts });
    }
    for (const route of fixed) {
      const size = route.parts.length;
      let group = this.bySize.get(size);
      if (!group) {
        group = {
          byLiteral: new Map(),
          params: fixed.filter((o) => o.parts.length === size && secondLiteral(o) === undefined),
        };
        this.bySize.set(size, group);
      }
      const second = secondLiteral(route);
      if (second !== undefined && !group.byLiteral.has(second)) {
        // In table order: this literal's routes and the ones with a parameter there.
        group.byLiteral.set(
          second,
          fixed.filter((o) => o.parts.length === size && (secondLiteral(o) ?? second) === second),
        );
      }
    }
  }

  /**
   * The last match, by method and raw path: a request with a body is matched twice, for its body limit before
   * the body is read and to be served after.
   */
  private last: { method: string; rawPath: string; match: RouteMatch<T> } | undefined;

  /**
   * Throws NotFound for an unknown path, MethodNotAllowed for a known path with the wrong method. The match may be
   * the one answered before for the same method and path: it is read, never changed.
   */
  match(method: string, rawPath: string): RouteMatch<T> {
    const last = this.last;
    if (last !== undefined && last.rawPath === rawPath && last.method === method) return last.match;
    const match = this.find(method, rawPath);
    this.last = { method, rawPath, match };
    return match;
  }

  private find(method: string, rawPath: string): RouteMatch<T> {
    const path = new PathSegments(rawPath);
    let pathMatched = false;
    const group = this.bySize.get(path.count);
    const fixed = group && (path.count > 1 ? (group.byLiteral.get(path.segment(1)) ?? group.params) : group.params);
    for (const list of [fixed, this.withRest]) {
      if (!list) continue;
      for (const route of list) {
        if (route.parts.length > path.count) continue;
        const params = matchParts(route.parts, path);
        if (!params) continue;
        pathMatched = true;
        const { def } = route;
        if (def.method === method || (method === 'HEAD' && def.method === 'GET')) {
          return { target: def.target, params, route: def.path };
        }
      }
    }
    if (pathMatched) throw new MethodNotAllowed('Method Not Allowed');
    throw new NotFound(`No route for ${method} ${rawPath}`);
  }
}

/**
 * The segments of a raw path as `rawPath.split('/').slice(1)` gives them,
 * less one trailing empty segment (a trailing slash), located in place:
 * literal segments are compared without making a string of each.
 */
class PathSegments {
  /** Where each segment starts, and one past the end of the last (as if a `/` followed it). */
  private readonly starts: number[] = [];
  readonly count: number;

  constructor(readonly raw: string) {
    let end = raw.length;
    for (let slash = raw.indexOf('/'); slash >= 0 && slash < end; slash = raw.indexOf('/', slash + 1))
      this.starts.push(slash + 1);
    if (this.starts.length > 1 && this.starts[this.starts.length - 1] === end) {
      this.starts.pop();
      end -= 1;
    }
    this.count = this.starts.length;
    this.starts.push(end + 1);
  }

  segment(index: number): string {
    return this.raw.slice(this.starts[index]!, this.starts[index + 1]! - 1);
  }

  isEmpty(index: number): boolean {
    return this.starts[index + 1]! - 1 === this.starts[index]!;
  }

  is(index: number, literal: string): boolean {
    const start = this.starts[index]!;
    return this.starts[index + 1]! - 1 - start === literal.length && this.raw.startsWith(literal, start);
  }

  /** Segments `from` to the last, each as a string. */
  rest(from: number): string[] {
    const out: string[] = [];
    for (let i = from; i < this.count; i++) out.push(this.segment(i));
    return out;
  }
}

/** A route's second segment when it is a literal. */
function secondLiteral(route: Compiled<unknown>): string | undefined {
  const part = route.parts[1];
  return part && 'literal' in part ? part.literal : undefined;
}

function matchParts(parts: Compiled<unknown>['parts'], path: PathSegments): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if ('rest' in part) {
      const rest = path.rest(i);
      if (rest.every((s) => s === '')) return undefined;
      params[part.rest] = rest.map(decodeSegment).join('/');
      return params;
    }
    if ('literal' in part) {
      if (!path.is(i, part.literal)) return undefined;
    } else {
      if (path.isEmpty(i)) return undefined;
      params[part.param] = decodeSegment(path.segment(i));
    }
  }
  return params;
}

function decodeSegment(seg: string): string {
  if (!seg.includes('%')) return seg;
  try {
    return decodeURIComponent(seg);
  } catch {
    throw new InvalidInput(`Malformed percent-encoding in path segment '${seg.slice(0, 100)}'`);
  }
}
