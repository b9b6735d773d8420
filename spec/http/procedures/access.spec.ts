/**
 * The one entry point, in process: lookup, kind, access level and collection
 * permissions are checked before a handler runs, whatever the transport.
 */
import { expect } from 'chai';
import { DbError, Forbidden, NotFound } from '../../../lib/errors.js';
import { ProcedureCaller } from '../../helpers/procedure-caller.js';
import type { Principal } from '../../../lib/http/procedures/context.js';

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('procedures in process: access', () => {
  let c: ProcedureCaller;
  let admin: Principal;
  beforeEach(async () => {
    c = await ProcedureCaller.open();
    admin = await c.principal();
  });
  afterEach(async () => {
    await c.close();
  });

  it('answers an unknown procedure with NotFound naming it', async () => {
    const err = await failure(c.call('records.frobnicate', admin));
    expect(err).to.be.instanceOf(NotFound);
    expect((err as Error).message).to.equal("Unknown procedure 'records.frobnicate'");
  });

  it('refuses an admin procedure to a non-admin key, and serves it to the admin key', async () => {
    const user = await c.principal({ name: 'user' });
    const err = await failure(c.call('keys.list', user));
    expect(err).to.be.instanceOf(Forbidden);
    expect((err as Error).message).to.equal('Admin permission required');
    expect(await c.call('keys.list', admin))
      .to.have.property('keys')
      .that.is.an('array');
  });

  it('checks collection permissions before the handler runs, for reads and writes', async () => {
    const reader = await c.principal({ name: 'reader', collection_permissions: { open: { read: true } } });
    expect(await c.call('records.find', reader, { collection: 'open' })).to.deep.equal([]);
    expect(await failure(c.call('records.find', reader, { collection: 'closed' }))).to.be.instanceOf(Forbidden);
    const write = await failure(c.call('records.insert', reader, { collection: 'open' }, { title: 'x' }));
    expect(write).to.be.instanceOf(Forbidden);
    // Nothing was written: the refusal came before the handler.
    expect(await c.call('records.find', admin, { collection: 'open' })).to.deep.equal([]);
  });

  it('refuses to serve a stream procedure as a single answer (a table bug, reported as INTERNAL)', async () => {
    const err = await failure(c.call('changes.subscribe', admin, { collection: 'x' }));
    expect(err).to.be.instanceOf(Error).and.not.instanceOf(DbError);
    expect((err as Error).message).to.contain("'changes.subscribe' is a stream");
    const other = await failure(
      c.dispatcher.openStream('records.find', { args: { collection: 'x' }, body: {} }, admin),
    );
    expect((other as Error).message).to.contain("'records.find' is a query");
  });
});
