/**
 * Bodiless GETs are answered by the Dispatcher straight from the node:http
 * server (transport/node-server.ts); everything else goes through fastify.
 * Both must answer alike.
 */
import { expect } from 'chai';
import { TestServer } from '../../helpers/test-server.js';
import { httpRequest } from '../../helpers/raw-http.js';

describe('bodiless GETs served without fastify', () => {
  let t: TestServer;
  let token: string;
  let id: string;
  before(async () => {
    t = await TestServer.start();
    token = await t.adminToken();
    id = (await t.request('POST', '/api/insert/people', { name: 'Ann', age: 31 })).body.id;
  });
  after(async () => { await t.stop(); });

  const get = (path: string, headers: Record<string, string | string[]> = {}, body?: string) =>
    httpRequest(t.url, { method: 'GET', path, headers: { authorization: `Bearer ${token}`, ...headers }, body });

  it('answers a read with the record, its request id, content type and length', async () => {
    const r = await get(`/api/find/people/${id}`);
    expect(r.status).to.equal(200);
    expect(r.body).to.deep.equal({ id, name: { type: 'String', value: 'Ann' }, age: { type: 'Integer', value: 31 } });
    expect(r.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
    expect(r.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(Number(r.headers['content-length'])).to.equal(Buffer.byteLength(r.text));
  });

  it('answers the same record through fastify when the GET carries a body', async () => {
    const direct = await get(`/api/find/people/${id}`);
    const viaFastify = await get(`/api/find/people/${id}`, { 'content-type': 'application/json' }, '{}');
    expect(viaFastify.status).to.equal(200);
    expect(viaFastify.body).to.deep.equal(direct.body);
    expect(viaFastify.headers['content-type']).to.equal(direct.headers['content-type']);
  });

  it('reads headers as node joins or keeps their repeats', async () => {
    // Accept lines are joined: the second one asks for MessagePack.
    const r = await get(`/api/find/people/${id}`, { accept: ['application/json', 'application/msgpack'] });
    expect(r.headers['content-type']).to.equal('application/msgpack');
    // A repeated identical Authorization passes; a different one is refused.
    expect((await get(`/api/find/people/${id}`, { authorization: [`Bearer ${token}`, `Bearer ${token}`] })).status).to.equal(200);
    expect((await get(`/api/find/people/${id}`, { authorization: [`Bearer ${token}`, 'Bearer other'] })).status).to.equal(400);
    // Header names are matched in any case.
    const upper = await httpRequest(t.url, { method: 'GET', path: `/api/find/people/${id}`, headers: { AUTHORIZATION: `Bearer ${token}`, ACCEPT: 'application/msgpack' } });
    expect(upper.status).to.equal(200);
    expect(upper.headers['content-type']).to.equal('application/msgpack');
  });

  it('answers errors in the product format: unknown route, bad token, missing record', async () => {
    expect((await get('/api/nowhere')).status).to.equal(404);
    expect((await get(`/api/find/people/${id}`, { authorization: 'Bearer nope' })).body.code).to.equal(401);
    const missing = await get('/api/find/people/none');
    expect(missing.status).to.equal(404);
    expect(missing.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(missing.body).to.be.an('object');
  });
});
