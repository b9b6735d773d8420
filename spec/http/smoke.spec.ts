import { expect } from 'chai';
import { TestServer } from '../helpers/test-server.js';

describe('http smoke', () => {
  let t: TestServer;
  before(async () => {
    t = await TestServer.start();
  });
  after(async () => {
    await t.stop();
  });

  it('inserts and reads back a record over JSON and MessagePack', async () => {
    const ins = await t.request('POST', '/api/insert/things', { name: 'a', n: 1 }, { format: 'msgpack' });
    expect(ins.status).to.equal(201);
    const got = await t.request('GET', `/api/find/things/${ins.body.id}`, undefined, { format: 'msgpack' });
    expect(got.status).to.equal(200);
    expect(got.body.name).to.deep.equal({ type: 'String', value: 'a' });
  });
});
