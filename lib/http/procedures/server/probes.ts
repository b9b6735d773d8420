/**
 * Health probes for orchestrators (a load balancer, Kubernetes), without a
 * token and with small bodies:
 * - `GET /api/health/live`: the process answers; always 200.
 * - `GET /api/health/ready`: 200 when the server can take traffic, else
 *   503 saying what is not ready: recovery done (always, once the server
 *   answers: it listens only after recovery), storage writable (not
 *   read-only after a storage failure), every search index ready or
 *   building (none failed), not shutting down, and the admin key stored
 *   (tokens can be issued: not yet between the bind and the key's write
 *   at a start, or on a cluster's new primary). The body names no
 *   collection or file: an admin's `GET /api/health` does.
 */
import Type from 'typebox';
import { defineProcedure, WithStatus } from '../procedure.js';
import type { Context } from '../context.js';

const Checks = Type.Object({
  recovery: Type.Literal('done', { description: 'Startup recovery finished (the server answers only after it).' }),
  storage: Type.Union([Type.Literal('writable'), Type.Literal('read-only')], {
    description: 'read-only after a storage failure, until the background repair succeeds.',
  }),
  search_indexes: Type.Union([Type.Literal('ready'), Type.Literal('building'), Type.Literal('failed')], {
    description: 'building is ready (searches scan exactly meanwhile); failed is not.',
  }),
  shutdown: Type.Union([Type.Literal('no'), Type.Literal('closing')]),
  auth: Type.Union([Type.Literal('ready'), Type.Literal('starting')], {
    description:
      'starting from the bind until the admin key is stored (a token asked for meanwhile gets 503 with Retry-After).',
  }),
});

const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
  checks: Checks,
  reasons: Type.Optional(Type.Array(Type.String(), { description: 'What is not ready, one sentence each.' })),
});

export const healthLive = defineProcedure({
  name: 'health.live',
  kind: 'query',
  access: 'public',
  input: () => undefined,
  handler: () => ({ status: 'live' }),
  schema: {
    summary: 'Liveness: the process answers',
    description: 'Always 200 while the process serves; no token needed.',
    response: Type.Object({ status: Type.Literal('live') }),
  },
});

export const healthReady = defineProcedure({
  name: 'health.ready',
  kind: 'query',
  access: 'public',
  input: () => undefined,
  handler: (_i, ctx) => {
    const { checks, reasons } = readiness(ctx);
    if (reasons.length === 0) return { status: 'ready', checks };
    return new WithStatus(503, { status: 'not_ready', checks, reasons });
  },
  schema: {
    summary: 'Readiness: whether the server can take traffic',
    description:
      '200 when recovery is done, storage is writable, no search index failed, the server is not shutting ' +
      'down and its admin key is stored; otherwise 503 with the same body saying what is not. No token needed.',
    response: Readiness,
    statuses: { '503': Type.Object(Readiness.properties, { description: 'Not ready: `reasons` says why.' }) },
  },
});

function readiness(ctx: Context): { checks: Record<string, string>; reasons: string[] } {
  const reasons: string[] = [];
  const readOnly = ctx.storage.readOnly;
  if (readOnly) reasons.push('storage is read-only after a storage failure; writes are refused until it is repaired');
  let failed = 0,
    building = 0;
  for (const index of ctx.health.search.status()) {
    if (index.state === 'failed') failed++;
    else if (index.state !== 'ready') building++;
  }
  if (failed > 0)
    reasons.push(
      `${failed} search index${failed === 1 ? '' : 'es'} could not be built; an admin's GET /api/health names them`,
    );
  const closing = ctx.lifecycle.closing;
  if (closing) reasons.push('the server is shutting down');
  const keysReady = ctx.keys.hasAdmin();
  if (!keysReady) reasons.push('the admin key is not stored yet: no token can be issued');
  const checks = {
    recovery: 'done',
    storage: readOnly ? 'read-only' : 'writable',
    search_indexes: failed > 0 ? 'failed' : building > 0 ? 'building' : 'ready',
    shutdown: closing ? 'closing' : 'no',
    auth: keysReady ? 'ready' : 'starting',
  };
  return { checks, reasons };
}
