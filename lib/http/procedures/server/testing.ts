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
import { Type } from '../shapes.js';
import type { Context, TestControl } from '../context.js';

/** Said of every test-control route. */
const TEST_ONLY = 'Served by a test server (startTestServer of eddydb/testing) only: any other answers 404.';

/** The clock of a test server. */
const ClockView = Type.Object(
  { now: Type.String({ description: 'RFC 3339.' }), frozen: Type.Boolean() },
  { title: 'TestClock' },
);

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
  schema: {
    summary: 'Set the test server back to its start',
    description: TEST_ONLY,
    response: Type.Object({ reset: Type.Literal(true) }),
  },
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
  schema: {
    summary: 'Take a checkpoint of the test server',
    description: TEST_ONLY,
    response: Type.Object({ checkpoint_id: Type.String() }),
  },
  handler: async (_i, ctx) => ({ checkpoint_id: await control(ctx).checkpoint() }),
});

export const testingRestore = defineProcedure({
  name: 'testing.restore',
  kind: 'mutation',
  access: 'admin',
  input: (raw) => param(raw, 'id'),
  schema: {
    summary: 'Set the test server back to a checkpoint',
    description: TEST_ONLY,
    response: Type.Object({ restored: Type.String() }),
  },
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
  schema: { summary: "The test server's clock", description: TEST_ONLY, response: ClockView },
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
  schema: {
    summary: "Move or freeze the test server's clock",
    description: TEST_ONLY,
    body: Type.Object(
      {
        advance: Type.Optional(
          Type.Union([Type.String(), Type.Number()], { description: "Milliseconds, or text such as '10m'." }),
        ),
        set: Type.Optional(
          Type.Union([Type.String(), Type.Number()], { description: 'An ISO 8601 instant or epoch milliseconds.' }),
        ),
        freeze: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false, description: "Give 'advance' or 'set', not both." },
    ),
    response: ClockView,
  },
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
