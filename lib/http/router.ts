/**
 * Route matching over the raw path: the path is split on literal `/` first
 * and each segment is percent-decoded afterwards, so an encoded `%2F` stays
 * inside its segment (a KV key `a/b` arrives as one segment `a%2Fb`).
 * Routes are tried in table order; literal routes are listed before their
 * parameterised siblings. A last segment `:name+` takes the rest of the path
 * (one or more segments, each decoded, joined by `/`); such routes are tried
 * after the fixed-length ones.
 */
import { InvalidInput, MethodNotAllowed, NotFound } from '../errors.js';

export interface RouteDef<T> {
  readonly method: string;
  readonly path: string;
  readonly target: T;
}

type Part = { literal: string } | { param: string } | { rest: string };
interface Compiled<T> { def: RouteDef<T>; parts: Part[] }

export interface RouteMatch<T> {
  target: T;
  params: Record<string, string>;
  /** The matched route's path pattern, e.g. `/api/find/:collection/:id` (the access log's `route`). */
  route: string;
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
      const parts = def.path.split('/').slice(1).map((p): Part => {
        if (p.startsWith(':') && p.endsWith('+')) return { rest: p.slice(1, -1) };
        return p.startsWith(':') ? { param: p.slice(1) } : { literal: p };
      });
      if (parts.some((p) => 'rest' in p)) this.withRest.push({ def, parts });
      else fixed.push({ def, parts });
    }
    for (const r of fixed) {
      const size = r.parts.length;
      let group = this.bySize.get(size);
      if (!group) {
        group = { byLiteral: new Map(), params: fixed.filter((o) => o.parts.length === size && secondLiteral(o) === undefined) };
        this.bySize.set(size, group);
      }
      const second = secondLiteral(r);
      if (second !== undefined && !group.byLiteral.has(second)) {
        // In table order: this literal's routes and the ones with a parameter there.
        group.byLiteral.set(second, fixed.filter((o) => o.parts.length === size && (secondLiteral(o) ?? second) === second));
      }
    }
  }

  /** Throws NotFound for an unknown path, MethodNotAllowed for a known path with the wrong method. */
  match(method: string, rawPath: string): RouteMatch<T> {
    const segments = rawPath.split('/').slice(1);
    if (segments.length > 1 && segments[segments.length - 1] === '') segments.pop();
    let pathMatched = false;
    const group = this.bySize.get(segments.length);
    const fixed = group && (group.byLiteral.get(segments[1]!) ?? group.params);
    for (const list of [fixed, this.withRest]) {
      if (!list) continue;
      for (const r of list) {
        if (r.parts.length > segments.length) continue;
        const params = matchParts(r.parts, segments);
        if (!params) continue;
        pathMatched = true;
        if (r.def.method === method || (method === 'HEAD' && r.def.method === 'GET')) return { target: r.def.target, params, route: r.def.path };
      }
    }
    if (pathMatched) throw new MethodNotAllowed('Method Not Allowed');
    throw new NotFound(`No route for ${method} ${rawPath}`);
  }
}

/** A route's second segment when it is a literal. */
function secondLiteral(r: Compiled<unknown>): string | undefined {
  const p = r.parts[1];
  return p && 'literal' in p ? p.literal : undefined;
}

function matchParts(parts: Compiled<unknown>['parts'], segments: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const seg = segments[i]!;
    if ('rest' in part) {
      const rest = segments.slice(i);
      if (rest.every((s) => s === '')) return undefined;
      params[part.rest] = rest.map(decodeSegment).join('/');
      return params;
    }
    if ('literal' in part) {
      if (part.literal !== seg) return undefined;
    } else {
      if (seg === '') return undefined;
      params[part.param] = decodeSegment(seg);
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
