/**
 * Which path-routed function answers `/api/route/<path>` (protocol.md 2.11),
 * by the matcher of routing/path-routes.ts: the method must match, the
 * segment counts must match, `:name` segments become parameters, and the
 * pattern with the fewest placeholders wins.
 */
import type { CompiledFunction } from '../compiler/index.js';
import { matchRoute, type RouteCandidate } from '../path-routes.js';

export interface RouteHit {
  readonly fn: CompiledFunction;
  /** Path parameters, decoded. */
  readonly params: Readonly<Record<string, string>>;
}

export function findRoute(functions: readonly CompiledFunction[], method: string, path: string): RouteHit | undefined {
  const candidates: RouteCandidate<CompiledFunction>[] = [];
  for (const fn of functions) if (fn.route) candidates.push({ method: fn.route.method, pattern: fn.route.pattern, value: fn });
  const hit = matchRoute(candidates, method, path);
  return hit && { fn: hit.value, params: hit.params };
}
