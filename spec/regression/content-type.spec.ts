/**
 * An empty, unparsable or multi-valued Content-Type was a 500
 * on every route with a body (also unauthenticated on POST /api/auth/token),
 * because fastify judged the header itself and its error fell through as
 * INTERNAL. Now the Dispatcher decides for both transports: a missing or blank
 * type is JSON, a list or an unparsable value is 415 naming the value, and the
 * express adapter answers byte for byte as fastify does.
 */
import { expect } from 'chai';
import { ADMIN_KEY, TestServer, withoutRequestId } from '../helpers/test-server.js';
import { httpRequest, startExpress, type RawReply } from '../helpers/raw-http.js';

const BODY_ROUTES: Array<{ name: string; method: string; path: string; body: unknown; auth: boolean }> = [
  { name: 'insert', method: 'POST', path: '/api/insert/ctype', body: { a: 1 }, auth: true },
  { name: 'find', method: 'POST', path: '/api/find/ctype', body: { limit: 1 }, auth: true },
  {
    name: 'batch insert',
    method: 'POST',
    path: '/api/batch/insert/ctype',
    body: { inserts: [{ data: { a: 2 } }] },
    auth: true,
  },
  { name: 'kv set', method: 'POST', path: '/api/kv/set/ctype', body: { value: 'v' }, auth: true },
  { name: 'token exchange', method: 'POST', path: '/api/auth/token', body: { api_key: 'wrong-key' }, auth: false },
];

const REFUSED_TYPES = [
  'foo',
  ',',
  'application/json, application/msgpack',
  'application/msgpack, application/json',
  '/',
  'application/',
  ';charset=utf-8',
  'text/xml',
];

describe('odd Content-Type values', () => {
  let t: TestServer;
  let express: { url: string; close: () => Promise<void> };
  let admin: string;

  before(async () => {
    t = await TestServer.start();
    express = await startExpress(t.server.dispatcher);
    admin = await t.adminToken();
  });
  after(async () => {
    await express.close();
    await t.stop();
  });

  const send = (
    base: string,
    route: (typeof BODY_ROUTES)[number],
    contentType: string | undefined,
  ): Promise<RawReply> =>
    httpRequest(base, {
      method: route.method,
      path: route.path,
      body: JSON.stringify(route.body),
      headers: {
        ...(contentType === undefined ? {} : { 'Content-Type': contentType }),
        ...(route.auth ? { Authorization: `Bearer ${admin}` } : {}),
      },
    });

  for (const route of BODY_ROUTES) {
    for (const type of REFUSED_TYPES) {
      it(
        `answers ${route.name} with Content-Type ${JSON.stringify(type)} by 415 {error} naming the value, on ` +
          `fastify and express alike`,
        async () => {
          const f = await send(t.url, route, type);
          const e = await send(express.url, route, type);
          expect(f.status, f.text).to.equal(415);
          expect(f.headers['content-type']).to.contain('application/json');
          expect(f.body.error)
            .to.be.a('string')
            .and.contain(type === 'text/xml' ? 'text/xml' : `'${type}'`);
          expect({ status: e.status, type: e.headers['content-type'], body: withoutRequestId(e.text) }).to.deep.equal({
            status: f.status,
            type: f.headers['content-type'],
            body: withoutRequestId(f.text),
          });
        },
      );
    }

    for (const [why, type] of [
      ['no', undefined],
      ['an empty', ''],
      ['a blank', '   '],
    ] as const) {
      it(`reads a ${route.name} body sent with ${why} Content-Type as JSON, on fastify and express alike`, async () => {
        const f = await send(t.url, route, type);
        const e = await send(express.url, route, type);
        expect(f.status, f.text).to.be.below(500);
        expect(f.status, f.text).to.not.equal(415);
        expect(e.status, e.text).to.equal(f.status);
      });
    }
  }

  it('still exchanges a correct key sent without a Content-Type', async () => {
    const r = await httpRequest(t.url, {
      method: 'POST',
      path: '/api/auth/token',
      body: JSON.stringify({ api_key: ADMIN_KEY }),
    });
    expect(r.status, r.text).to.equal(200);
    expect(r.body.token).to.be.a('string');
  });

  it('escapes control bytes and cuts a long value in the message', async () => {
    const long = 'x/' + 'y'.repeat(500) + ', z';
    const r = await send(t.url, BODY_ROUTES[0]!, long);
    expect(r.status).to.equal(415);
    expect(r.body.error.length).to.be.below(250);
    const odd = await send(t.url, BODY_ROUTES[0]!, 'a/b\u00ff, c');
    expect(odd.status).to.equal(415);
    expect(odd.body.error, odd.text).to.match(/\\x[0-9a-f]{2}/);
  });

  it('refuses Content-Type sent twice with different values with 415, and accepts an identical repeat', async () => {
    const headers = { Authorization: `Bearer ${admin}` };
    const twice = await httpRequest(t.url, {
      method: 'POST',
      path: '/api/insert/ctype',
      body: '{"a":1}',
      headers: { ...headers, 'Content-Type': ['application/json', 'application/msgpack'] },
    });
    expect(twice.status, twice.text).to.equal(415);
    const viaExpress = await httpRequest(express.url, {
      method: 'POST',
      path: '/api/insert/ctype',
      body: '{"a":1}',
      headers: { ...headers, 'Content-Type': ['application/json', 'application/msgpack'] },
    });
    expect(withoutRequestId(viaExpress.text)).to.deep.equal(withoutRequestId(twice.text));
    const same = await httpRequest(t.url, {
      method: 'POST',
      path: '/api/insert/ctype',
      body: '{"a":1}',
      headers: { ...headers, 'Content-Type': ['application/json', 'application/json'] },
    });
    expect(same.status, same.text).to.equal(201);
  });

  it('wrote nothing through the refused requests', async () => {
    const r = await t.request('POST', '/api/find/ctype', {
      filter: { type: 'Condition', content: { field: 'a', operator: 'Eq', value: 1 } },
    });
    // Only inserts without a Content-Type or with a blank one (3 variants on 2 transports) and the identical repeat
    // wrote {a: 1}.
    expect(r.body).to.have.length(7);
    const kv = await t.request('GET', '/api/kv/get/ctype');
    expect(kv.status).to.equal(200);
  });
});
