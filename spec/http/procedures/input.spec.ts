/**
 * Procedure inputs from the one argument object: named arguments arrive as
 * text (HTTP path and query) or as their own types (WebSocket payloads), and
 * every malformed one is an InvalidInput naming it, before the handler runs.
 */
import { expect } from 'chai';
import { InvalidInput } from '../../../lib/errors.js';
import { ProcedureCaller } from '../../helpers/procedure-caller.js';
import type { Principal } from '../../../lib/http/procedures/context.js';

async function invalid(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(InvalidInput);
    return (err as Error).message;
  }
  throw new Error('expected InvalidInput');
}

describe('procedures in process: input', () => {
  let c: ProcedureCaller;
  let admin: Principal;
  beforeEach(async () => {
    c = await ProcedureCaller.open();
    admin = await c.principal();
  });
  afterEach(async () => {
    await c.close();
  });

  it('names a missing or empty path parameter', async () => {
    expect(await invalid(c.call('records.findById', admin, { collection: 'c' }))).to.equal(
      "Missing path parameter 'id'",
    );
    expect(await invalid(c.call('records.find', admin, { collection: '' }))).to.equal(
      "Missing path parameter 'collection'",
    );
  });

  it('refuses a named argument that is neither text nor a number or boolean', async () => {
    expect(await invalid(c.call('records.findById', admin, { collection: 'c', id: { $gt: '' } }))).to.equal(
      "'id' must be a string",
    );
  });

  it('takes a flag as a boolean (WebSocket) or as text (HTTP), and refuses anything else', async () => {
    const inserted = await c.call('records.insert', admin, { collection: 'c', bypass_ripple: true }, { id: 'a' });
    expect(inserted).to.deep.equal({ id: 'a' });
    expect(
      await c.call('records.insert', admin, { collection: 'c', bypass_ripple: 'false' }, { id: 'b' }),
    ).to.deep.equal({ id: 'b' });
    expect(
      await invalid(c.call('records.insert', admin, { collection: 'c', bypass_ripple: 'maybe' }, { id: 'd' })),
    ).to.equal("Query parameter 'bypass_ripple' must be true or false");
  });

  it('reads a field list given comma-joined or as a list', async () => {
    await c.call('records.insert', admin, { collection: 'c' }, { id: 'r', a: 1, b: 2, z: 3 });
    const joined = await c.call('records.findById', admin, { collection: 'c', id: 'r', select_fields: 'a,b' });
    const listed = await c.call('records.findById', admin, { collection: 'c', id: 'r', select_fields: ['a', 'b'] });
    expect(Object.keys(joined as object).sort()).to.deep.equal(['a', 'b', 'id']);
    expect(listed).to.deep.equal(joined);
  });

  it('refuses a body that is not an object, and a bad collection name', async () => {
    expect(await invalid(c.call('records.insert', admin, { collection: 'c' }, [1, 2]))).to.equal(
      'Request body must be a JSON object',
    );
    expect(await invalid(c.call('records.find', admin, { collection: '__proto__' }))).to.match(/collection name/i);
  });
});
