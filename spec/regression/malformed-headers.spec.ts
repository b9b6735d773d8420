/**
 * Malformed requests in general, written byte by byte on raw
 * sockets: odd Authorization bytes, repeated headers, Accept and
 * Accept-Encoding garbage, oversized headers, non-UTF-8 bytes in paths and
 * queries, unknown methods and bad upgrades. Each is a 4xx in the product's
 * error format (or served normally), never a 500 and never fastify's or
 * node's own body; the express adapter with its clientError handler agrees.
 */
import { expect } from 'chai';
import { TestServer, withoutRequestId } from '../helpers/test-server.js';
import { parseRawResponse, socketRequest, startExpress } from '../helpers/raw-http.js';

type Case = [why: string, request: (token: string) => string | Buffer, status: number];

const get = (path: string, headers: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`;
const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

const CASES: Case[] = [
  ['an Authorization header with control bytes', () => get('/api/config', 'Authorization: Bearer \x01\x02\r\n'), 400],
  [
    'an Authorization header with non-UTF-8 bytes',
    () =>
      bytes(
        'GET /api/config HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ',
        [0xff, 0xfe, 0x80],
        '\r\nConnection: close\r\n\r\n',
      ),
    401,
  ],
  ['an empty Authorization header', () => get('/api/config', 'Authorization: \r\n'), 401],
  ['a 12 KB Authorization header', () => get('/api/config', `Authorization: Bearer ${'a'.repeat(12_000)}\r\n`), 401],
  [
    'two different Authorization headers',
    (tk) => get('/api/config', `Authorization: Bearer ${tk}\r\nAuthorization: Bearer other\r\n`),
    400,
  ],
  ['headers past the size limit', () => get('/api/health', `X-Filler: ${'a'.repeat(20_000)}\r\n`), 431],
  [
    'garbage Accept and Accept-Encoding',
    () => get('/api/health', 'Accept: ;;;,,,*/*;q=abc\r\nAccept-Encoding: gzip;q=x, ,,;\r\n'),
    200,
  ],
  ['an Accept header with control bytes', () => get('/api/health', 'Accept: \x7f\x01\r\n'), 400],
  [
    'two Content-Length headers',
    (tk) =>
      `POST /api/insert/h HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tk}\r\nContent-Length: ` +
      `7\r\nContent-Length: 8\r\nConnection: close\r\n\r\n{"a":1}`,
    400,
  ],
  [
    'two different Content-Type headers',
    (tk) =>
      `POST /api/insert/h HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tk}\r\nContent-Type: ` +
      `application/json\r\nContent-Type: application/msgpack\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{"a":1}`,
    415,
  ],
  [
    'a malformed chunked body',
    (tk) =>
      `POST /api/insert/h HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tk}\r\nTransfer-Encoding: ` +
      `chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    400,
  ],
  [
    'raw non-UTF-8 bytes in the path',
    (tk) =>
      bytes(
        'GET /api/find/h/',
        [0xff, 0xfe],
        ` HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tk}\r\nConnection: close\r\n\r\n`,
      ),
    400,
  ],
  ['a percent-encoded non-UTF-8 path segment', (tk) => get('/api/find/h/%ff', `Authorization: Bearer ${tk}\r\n`), 400],
  [
    'raw non-UTF-8 bytes in the query',
    (tk) =>
      bytes(
        'GET /api/find/h/x?a=',
        [0xff],
        ` HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tk}\r\nConnection: close\r\n\r\n`,
      ),
    400,
  ],
  ['a percent-encoded non-UTF-8 query', (tk) => get('/api/find/h/x?a=%ff&%zz', `Authorization: Bearer ${tk}\r\n`), 404],
  ['a method the server does not route (PURGE)', () => get('/api/health', '').replace('GET', 'PURGE'), 405],
  ['a method HTTP does not know', () => get('/api/health', '').replace('GET', 'FOO'), 400],
  ['bytes that are not HTTP', () => '\x00\x01\x02 hello\r\n\r\n', 400],
];

function expectProductBody(status: number, body: string): void {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  if (status === 401 || status === 405 || status === 429) expect(parsed).to.include({ code: status });
  else expect(parsed.error, body).to.be.a('string').and.not.empty;
  expect(parsed).to.not.have.property('statusCode');
}

describe('malformed headers over raw sockets', () => {
  let t: TestServer;
  let express: { url: string; close: () => Promise<void> };
  let token: string;

  before(async () => {
    t = await TestServer.start();
    express = await startExpress(t.server.dispatcher);
    token = await t.adminToken();
  });
  after(async () => {
    await express.close();
    await t.stop();
  });

  for (const [why, request, status] of CASES) {
    it(`answers ${why} with ${status} in the product's format, on fastify and express alike`, async () => {
      const f = parseRawResponse(await socketRequest(t.url, request(token)));
      expect(f.status, f.body).to.equal(status);
      expect(f.headers['content-type']).to.contain('application/json');
      if (status >= 400) expectProductBody(status, f.body);
      const e = parseRawResponse(await socketRequest(express.url, request(token)));
      expect(e.status, e.body).to.equal(f.status);
      if (status >= 400) expect(withoutRequestId(e.body)).to.deep.equal(withoutRequestId(f.body));
    });
  }

  it('answers a WebSocket upgrade without Sec-WebSocket-Key with 400 in the product format', async () => {
    const r = parseRawResponse(
      await socketRequest(
        t.url,
        `GET /api/ws?token=${token} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: ` +
          `Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ),
    );
    expect(r.status).to.equal(400);
    expect(JSON.parse(r.body).error).to.contain('Sec-WebSocket-Key');
  });

  it('answers a WebSocket upgrade with a bad token with 401 {code, message}', async () => {
    const r = parseRawResponse(
      await socketRequest(
        t.url,
        'GET /api/ws?token=nope HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: ' +
          'Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      ),
    );
    expect(r.status).to.equal(401);
    expect(r.headers['content-type']).to.contain('application/json');
    expect(JSON.parse(r.body)).to.include({ code: 401 });
  });

  it('answers an upgrade to a path other than /api/ws with 404 instead of dropping the connection', async () => {
    const r = parseRawResponse(
      await socketRequest(
        t.url,
        'GET /api/health HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
      ),
    );
    expect(r.status).to.equal(404);
    expect(JSON.parse(r.body).error).to.contain('/api/ws');
  });

  it('answers an SSE subscription with a bad percent-encoding with 400 (was a 500)', async () => {
    const request = get(`/api/subscribe/%E0%A4%A?token=${token}`, '');
    const r = parseRawResponse(await socketRequest(t.url, request));
    expect(r.status).to.equal(400);
    expect(JSON.parse(r.body).error).to.contain('percent-encoding');
    const viaExpress = parseRawResponse(await socketRequest(express.url, request));
    expect(withoutRequestId(viaExpress.body)).to.deep.equal(withoutRequestId(r.body));
  });

  it('answers upgrade and plain requests whose target is not a URL without ending the process (`//[` crashed it)', async () => {
    for (const target of ['//[', 'http://[/api/ws', '//a:b@c:99999/api/ws']) {
      const upgrade = parseRawResponse(
        await socketRequest(
          t.url,
          `GET ${target} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`,
        ),
      );
      expect(upgrade.status, target).to.be.within(400, 499);
      const plain = parseRawResponse(await socketRequest(t.url, get(target, '')));
      expect(plain.status, target).to.be.within(400, 499);
    }
  });

  it('still serves the next request normally', async () => {
    expect((await t.request('GET', '/api/health')).status).to.equal(200);
  });
});
