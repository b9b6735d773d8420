/**
 * Test control over the wire, served only by a test server (eddydb/testing):
 * reset, checkpoints and the clock for tests that reach the server by URL
 * alone (a runner's global setup started it in another process). Any other
 * server answers 404, as for a route it does not have.
 */
import { InvalidInput, NotFound } from '../../../errors.js';
import { rejectUnknownMembers } from '../../../engine/index.js';
import { defineProcedure } from '../procedure.js';
import { bodyObject, param } from '../input.js';
import type { Context, TestControl } from '../context.js';

function control(ctx: Context): TestControl {
  const served = ctx.testing.control;
  if (!served) throw new NotFound('Test control is served only by a test server (startTestServer from eddydb/testing)');
  return served;
}

export const testingReset = defineProcedure({
  name: 'testing.reset',
  kind: 'mutation',
  access: 'admin',
  input: () => undefined,
  handler: async (_i, ctx) => {
    await control(ctx).reset();
    return { reset: true };
  },
});

export const testingCheckpoint = defineProcedure({
  name: 'testing.checkpoint',
  kind: 'mutation',
  access: 'admin',
  input: () => undefined,
  handler: async (_i, ctx) => ({ checkpoint_id: await control(ctx).checkpoint() }),
});

export const testingRestore = defineProcedure({
  name: 'testing.restore',
  kind: 'mutation',
  access: 'admin',
  input: (raw) => param(raw, 'id'),
  handler: async (id, ctx) => {
    await control(ctx).restore(id);
    return { restored: id };
  },
});

export const testingClockGet = defineProcedure({
  name: 'testing.clock.get',
  kind: 'query',
  access: 'admin',
  input: () => undefined,
  handler: (_i, ctx) => control(ctx).clock(),
});

export interface ClockMove {
  readonly advance?: string | number;
  readonly set?: string | number;
  readonly freeze?: boolean;
}

export const testingClockMove = defineProcedure({
  name: 'testing.clock.move',
  kind: 'mutation',
  access: 'admin',
  input: (raw): ClockMove => {
    const body = bodyObject(raw);
    rejectUnknownMembers(body, ['advance', 'set', 'freeze'], 'clock');
    const { advance, set, freeze } = body;
    if (advance !== undefined && typeof advance !== 'string' && typeof advance !== 'number')
      throw new InvalidInput("'advance' must be milliseconds or text such as '10m'");
    if (set !== undefined && typeof set !== 'string' && typeof set !== 'number')
      throw new InvalidInput("'set' must be an ISO 8601 instant or epoch milliseconds");
    if (freeze !== undefined && typeof freeze !== 'boolean') throw new InvalidInput("'freeze' must be a boolean");
    if (advance !== undefined && set !== undefined) throw new InvalidInput("give 'advance' or 'set', not both");
    return { advance, set, freeze };
  },
  handler: (move, ctx) => control(ctx).moveClock(move),
});

export const TESTING_PROCEDURES = [
  testingReset,
  testingCheckpoint,
  testingRestore,
  testingClockGet,
  testingClockMove,
] as const;
