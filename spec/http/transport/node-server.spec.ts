/**
 * Bodiless GETs, and POST, PUT, PATCH and DELETE once their body is read, are
 * answered by the Dispatcher straight from the node:http server
 * (transport/node-server.ts); everything else goes through fastify. Both
 * must answer alike.
 */
import { expect } from 'chai';
import { TestServer } from '../../helpers/test-server.js';
import { httpRequest, parseRawResponse, socketRequest } from '../../helpers/raw-http.js';

describe('bodiless GETs served without fastify', () => {
  let t: TestServer;
  let token: string;
  let id: string;
  before(async () => {
    t = await TestServer.start();
    token = await t.adminToken();
    id = (await t.request('POST', '/api/insert/people', { name: 'Ann', age: 31 })).body.id;
  });
  after(async () => {
    await t.stop();
  });

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
    expect(
      (await get(`/api/find/people/${id}`, { authorization: [`Bearer ${token}`, `Bearer ${token}`] })).status,
    ).to.equal(200);
    expect(
      (await get(`/api/find/people/${id}`, { authorization: [`Bearer ${token}`, 'Bearer other'] })).status,
    ).to.equal(400);
    // Header names are matched in any case.
    const upper = await httpRequest(t.url, {
      method: 'GET',
      path: `/api/find/people/${id}`,
      headers: { AUTHORIZATION: `Bearer ${token}`, ACCEPT: 'application/msgpack' },
    });
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

describe('requests with bodies served without fastify', () => {
  let t: TestServer;
  let token: string;
  before(async () => {
    t = await TestServer.start({ bodyLimitBytes: 1024 });
    token = await t.adminToken();
  });
  after(async () => {
    await t.stop();
  });

  const send = (method: string, path: string, body: string, headers: Record<string, string> = {}) =>
    httpRequest(t.url, {
      method,
      path,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body,
    });

  it('inserts, updates and deletes with JSON bodies', async () => {
    const made = await send('POST', '/api/insert/pets', JSON.stringify({ name: 'Rex' }));
    expect(made.status).to.equal(201);
    const id = made.body.id as string;
    expect((await send('PUT', `/api/update/pets/${id}`, JSON.stringify({ name: 'Max' }))).status).to.equal(200);
    expect((await send('DELETE', `/api/delete/pets/${id}`, '')).status).to.equal(200);
  });

  it('answers a malformed body and a body that is not JSON in the product format', async () => {
    const bad = await send('POST', '/api/insert/pets', '{"name":');
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.be.a('string');
    expect((await send('POST', '/api/insert/pets', 'name=Rex', { 'content-type': 'text/plain' })).status).to.be.within(
      400,
      499,
    );
  });

  it('answers a body over the limit with 413, read or only declared', async () => {
    const read = await send('POST', '/api/insert/pets', JSON.stringify({ name: 'x'.repeat(2000) }));
    expect(read.status).to.equal(413);
    // Declared larger than the limit and never sent: answered at once, and the connection closed.
    const raw = await socketRequest(
      t.url,
      `POST /api/insert/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ` +
        `1000000\r\n\r\n{"name":`,
    );
    const answer = parseRawResponse(raw);
    expect(answer.status).to.equal(413);
    expect(answer.headers.connection).to.equal('close');
    expect(JSON.parse(answer.body).error).to.be.a('string');
  });
});
