/** A transaction id is usable only by the key that began it (or an admin): others see 404. */
import { expect } from 'chai';
import { TestServer, errorBody } from '../helpers/test-server.js';

describe('regression: transactions belong to the key that began them', () => {
  let t: TestServer;
  before(async () => {
    t = await TestServer.start();
  });
  after(async () => {
    await t.stop();
  });

  it('hides a transaction from another non-admin key on every route, but not from its owner or an admin', async () => {
    const alice = await t.userToken({ name: 'alice' });
    const mallory = await t.userToken({ name: 'mallory' });
    const tx = (await t.request('POST', '/api/transactions', {}, { token: alice })).body.transaction_id;
    await t.request('POST', `/api/insert/acct?transaction_id=${tx}`, { id: 'a1', v: 1 }, { token: alice });
    const attempts = [
      t.request('GET', `/api/transactions/${tx}`, undefined, { token: mallory }),
      t.request('POST', `/api/transactions/${tx}/commit`, undefined, { token: mallory }),
      t.request('POST', `/api/transactions/${tx}/rollback`, undefined, { token: mallory }),
      t.request('POST', `/api/insert/acct?transaction_id=${tx}`, { id: 'evil' }, { token: mallory }),
      t.request('GET', `/api/find/acct/a1?transaction_id=${tx}`, undefined, { token: mallory }),
      t.request('POST', `/api/find/acct?transaction_id=${tx}`, {}, { token: mallory }),
      t.request(
        'POST',
        `/api/batch/insert/acct?transaction_id=${tx}`,
        { inserts: [{ data: { id: 'evil2' } }] },
        { token: mallory },
      ),
    ];
    for (const r of await Promise.all(attempts)) {
      expect(r.status).to.equal(404);
      expect(errorBody(r)).to.deep.equal({ error: 'Transaction not found' });
    }
    const list = await t.request('GET', '/api/transactions', undefined, { token: mallory });
    expect(list.body.transactions).to.deep.equal([]);
    expect((await t.request('GET', `/api/transactions/${tx}`)).status).to.equal(200);
    expect(
      (await t.request('POST', `/api/transactions/${tx}/commit`, undefined, { token: alice })).body.operations_count,
    ).to.equal(1);
  });
});
