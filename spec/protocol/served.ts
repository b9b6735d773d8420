/**
 * What this server serves, read from lib/http's tables. The one place the
 * protocol specs touch the route table, the WebSocket message table and the
 * router, so when their shape changes only this file is adapted. Routes and message types a transport
 * serves in front of the tables are listed by hand with the file that serves
 * them; wire.spec.ts checks every served entry through a real server, so a
 * hand-listed one that stops being served fails there.
 */
import { MethodNotAllowed, NotFound } from '../../lib/errors.js';
import { WS_MESSAGE_TYPES } from '../../lib/http/routing/messages.js';
import { Router } from '../../lib/http/routing/router.js';
import { ROUTES } from '../../lib/http/routing/routes.js';

export interface ServedRoute {
  readonly method: string;
  /** The pattern, `:name` for a parameter. */
  readonly path: string;
}

/** What the router chose for a concrete request: its pattern and the decoded parameter values in path order. */
export interface RouteChoice {
  readonly path: string;
  readonly params: readonly string[];
}

const TRANSPORT_ROUTES: readonly ServedRoute[] = [
  { method: 'GET', path: '/api/ws' }, // transport/ws.ts, the upgrade
];

export function servedRoutes(): ServedRoute[] {
  const all = [...ROUTES.map(({ method, path }) => ({ method, path })), ...TRANSPORT_ROUTES];
  return all.filter((r, i) => all.findIndex((o) => o.method === r.method && o.path === r.path) === i);
}

export function servedMessageTypes(): string[] {
  return Object.keys(WS_MESSAGE_TYPES);
}

const router = new Router(ROUTES);

/** The table route the real router picks for `method rawPath` (still percent-encoded), or undefined when none. */
export function routeFor(method: string, rawPath: string): RouteChoice | undefined {
  try {
    const { route, params } = router.match(method, rawPath);
    return { path: route, params: Object.values(params) };
  } catch (err) {
    if (err instanceof NotFound || err instanceof MethodNotAllowed) return undefined;
    throw err;
  }
}
