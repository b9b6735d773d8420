/**
 * Which path-routed function answers `/api/route/<path>` (protocol.md 2.11):
 * the method must match, the segment counts must match, `:name` segments
 * become parameters, and among several matches the pattern with the fewest
 * placeholders wins (ties: the earlier saved).
 *
 * Local adapter until F-pure's `routing/path-routes.ts` is merged; the lead
 * replaces the body of `findRoute` with a call to it (same inputs, same result).
 */
import type { CompiledFunction } from '../compiler/index.js';

export interface RouteHit {
  readonly fn: CompiledFunction;
  /** Path parameters, decoded. */
  readonly params: Record<string, string>;
}

export function findRoute(functions: readonly CompiledFunction[], method: string, path: string): RouteHit | undefined {
  const segments = splitPath(path);
  let best: (RouteHit & { placeholders: number }) | undefined;
  for (const fn of functions) {
    if (!fn.route || fn.route.method !== method) continue;
    const pattern = splitPath(fn.route.path);
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = Object.create(null);
    let placeholders = 0;
    const matches = pattern.every((p, i) => {
      if (p.startsWith(':')) {
        placeholders++;
        params[p.slice(1)] = segments[i]!;
        return segments[i] !== '';
      }
      return p === segments[i];
    });
    if (matches && (!best || placeholders < best.placeholders)) best = { fn, params, placeholders };
  }
  return best && { fn: best.fn, params: best.params };
}

function splitPath(path: string): string[] {
  return path.split('/').filter((s, i, all) => !(s === '' && (i === 0 || i === all.length - 1)));
}
