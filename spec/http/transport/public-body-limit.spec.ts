/**
 * The small body limit of requests that need no token (the token exchange,
 * health, a path no route serves), on every way a body arrives: read by the
 * node:http path (POST), by fastify (a GET with a body), by the express
 * adapter, or handed to the Dispatcher whole. A body over 64 KiB is a 413 in
 * the product's format as soon as its Content-Length or its bytes pass the
 * limit, and the connection is closed; routes that need a token keep the
 * full limit for a request that carries one.
 */
import { expect } from 'chai';
import { PUBLIC_BODY_LIMIT_BYTES } from '../../../lib/http/routing/dispatch.js';
import { TestServer, ADMIN_KEY } from '../../helpers/test-server.js';
import { httpRequest, parseRawResponse, socketRequest, startExpress } from '../../helpers/raw-http.js';

const LIMIT = PUBLIC_BODY_LIMIT_BYTES;

/** A request head with a declared length and no body sent: the answer must not wait for it. */
const declared = (method: string, path: string, length: number) =>
  `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/msgpack\r\nContent-Length: ${length}\r\n\r\n`;

/** A chunked body of `bytes` bytes that is never finished: an answer can only come from the bytes received. */
const unfinished = (method: string, path: string, bytes: number) => {
  const chunk = 'x'.repeat(8192);
  const chunks = Array.from(
    { length: Math.ceil(bytes / chunk.length) },
    () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
  ).join('');
  return (
    `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: ` +
    `chunked\r\n\r\n${chunks}`
  );
};

function expectRefused(raw: string): void {
  const answer = parseRawResponse(raw);
  expect(answer.status, raw.slice(0, 200)).to.equal(413);
  expect(answer.headers.connection).to.equal('close');
  expect(JSON.parse(answer.body)).to.deep.equal({
    error: `Request body exceeds ${LIMIT} bytes, the limit of a request without a token`,
    request_id: answer.headers['x-request-id'],
  });
}

describe('the body limit of requests without a token', () => {
  let t: TestServer;
  before(async () => {
    t = await TestServer.start();
  });
  after(async () => {
    await t.stop();
  });

  it('answers a token exchange declaring more than 64 KiB with 413 before any of the body is sent', async () => {
    expectRefused(await socketRequest(t.url, declared('POST', '/api/auth/token', 32 * 1024 * 1024)));
  });

  it('answers 413 as soon as a chunked body to the token exchange passes 64 KiB, without waiting for its end', async () => {
    expectRefused(await socketRequest(t.url, unfinished('POST', '/api/auth/token', LIMIT + 16 * 1024)));
  });

  it('refuses a large body on the requests fastify reads: a GET to health declaring one, an OPTIONS streaming one', async () => {
    // Fastify never reads a GET's body; one declared too large is refused all the same.
    expectRefused(await socketRequest(t.url, declared('GET', '/api/health', LIMIT + 1)));
    expectRefused(await socketRequest(t.url, declared('OPTIONS', '/api/auth/token', LIMIT + 1)));
    expectRefused(await socketRequest(t.url, unfinished('OPTIONS', '/api/auth/token', LIMIT + 16 * 1024)));
  });

  it('refuses a large body to a path no route serves', async () => {
    expectRefused(await socketRequest(t.url, declared('POST', '/api/no-such-route', LIMIT + 1)));
  });

  it('takes a token exchange body of up to 64 KiB', async () => {
    const body = JSON.stringify({ api_key: ADMIN_KEY }).padEnd(LIMIT, ' ');
    const r = await httpRequest(t.url, {
      method: 'POST',
      path: '/api/auth/token',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(r.status).to.equal(200);
    expect(r.body.token).to.be.a('string');
  });

  it('keeps the full limit on routes that need a token', async () => {
    const r = await t.request('POST', '/api/insert/big', { text: 'x'.repeat(1024 * 1024) }, { format: 'msgpack' });
    expect(r.status).to.equal(201);
  });

  it('holds a request to a route that needs a token, sent without one, to the small limit (its answer is a 401)', async () => {
    expectRefused(await socketRequest(t.url, declared('POST', '/api/insert/big', 32 * 1024 * 1024)));
    const small = await httpRequest(t.url, {
      method: 'POST',
      path: '/api/insert/big',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(small.status).to.equal(401);
  });

  it('answers a large body handed to the Dispatcher whole with the same 413', async () => {
    const r = await t.server.dispatcher.handle({
      method: 'POST',
      url: '/api/auth/token',
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(LIMIT + 1, 0x20),
    });
    expect(r.status).to.equal(413);
    expect(JSON.parse(r.body.toString())).to.deep.equal({
      error: `Request body exceeds ${LIMIT} bytes, the limit of a request without a token`,
      request_id: r.headers['X-Request-Id'],
    });
  });
});

describe('the body limit of requests without a token, behind the express adapter', () => {
  let t: TestServer;
  let express: { url: string; close: () => Promise<void> };
  let expressUrl: string;
  before(async () => {
    t = await TestServer.start();
    express = await startExpress(t.server.dispatcher);
    expressUrl = express.url;
  });
  after(async () => {
    await express.close();
    await t.stop();
  });

  it('answers 413 to a declared or streamed body over 64 KiB before reading the rest', async () => {
    expectRefused(await socketRequest(expressUrl, declared('POST', '/api/auth/token', 32 * 1024 * 1024)));
    expectRefused(await socketRequest(expressUrl, unfinished('POST', '/api/auth/token', LIMIT + 16 * 1024)));
  });

  it('keeps the full limit on routes that need a token', async () => {
    const token = await t.adminToken();
    const r = await httpRequest(expressUrl, {
      method: 'POST',
      path: '/api/insert/big',
      body: JSON.stringify({ text: 'x'.repeat(1024 * 1024) }),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    });
    expect(r.status).to.equal(201);
  });
});
