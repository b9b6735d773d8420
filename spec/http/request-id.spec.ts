/**
 * Request ids over real HTTP and WebSocket: an incoming `X-Request-Id` that
 * is safe to keep (at most 128 characters of letters, digits and
 * `-_.:/+=@`) is kept, anything else is replaced by a new one; the id is
 * echoed in the answer's header, in an error body's `request_id`, and in
 * every log line of the request (the access line, the failed-request line).
 * Each WebSocket message is a request of its own: its Error frame names
 * its id, as its log line does.
 */
import type { AddressInfo } from 'node:net';
import type { Server as NodeServer } from 'node:http';
import { expect } from 'chai';
import express from 'express';
import WebSocket from 'ws';
import { createExpressHandler, type LogLevel } from '../../lib/http/index.js';
import { createServerLog } from '../../lib/http/log/server-log.js';
import { MAX_REQUEST_ID_CHARS } from '../../lib/http/routing/request-id.js';
import { TestServer } from '../helpers/test-server.js';

interface Line {
  level: LogLevel;
  msg: string;
  extra: unknown;
  requestId: string | undefined;
}

/** A UUID v4 shape: what a new id looks like. */
const NEW_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  let t: TestServer;
  let lines: Line[];
  before(async () => {
    lines = [];
    t = await TestServer.start({
      memory: true,
      accessLog: true,
      logLevel: 'debug',
      logger: (level, msg, extra, requestId) => lines.push({ level, msg, extra, requestId }),
    });
  });
  after(() => t.stop());
  beforeEach(() => {
    lines.length = 0;
  });

  /** The access line of the request answered with `id`. */
  const accessLine = (id: string) =>
    lines.find((l) => l.msg === 'request completed' && (l.extra as { reqId: string }).reqId === id);

  it('keeps an incoming id, echoes it and names it in the access line', async () => {
    const id = 'lb-7f3a.trace:42/abc+def=@x_y';
    const r = await t.request('POST', '/api/insert/items', { n: 1 }, { headers: { 'X-Request-Id': id } });
    expect(r.status).to.equal(201);
    expect(r.headers.get('x-request-id')).to.equal(id);
    expect(accessLine(id), 'access line').to.not.equal(undefined);
  });

  it('puts the id in the error body and in the failed-request line', async () => {
    const id = 'client-req-0001';
    const r = await t.request('GET', '/api/find/items/nope', undefined, { headers: { 'X-Request-Id': id } });
    expect(r.status).to.equal(404);
    expect(r.headers.get('x-request-id')).to.equal(id);
    expect(r.body).to.deep.equal({ error: 'Record not found', request_id: id });
    expect((accessLine(id)?.extra as { error: string }).error).to.equal('NOT_FOUND');
    // Without the access log, the failed-request line (at debug) names it.
    const quiet: Line[] = [];
    const plain = await TestServer.start({
      memory: true,
      logLevel: 'debug',
      logger: (level, msg, extra, requestId) => quiet.push({ level, msg, extra, requestId }),
    });
    try {
      await plain.request('GET', '/api/find/items/nope', undefined, { headers: { 'X-Request-Id': id } });
      const failed = quiet.find((l) => l.msg === 'GET /api/find/items/nope -> 404');
      expect(failed).to.deep.include({ level: 'debug', requestId: id });
    } finally {
      await plain.stop();
    }
  });

  it('puts the id in a {code, message} body too (401)', async () => {
    const r = await t.request('GET', '/api/collections', undefined, {
      token: 'not-a-token',
      headers: { 'X-Request-Id': 'auth-check-1' },
    });
    expect(r.status).to.equal(401);
    expect(r.body).to.include({ code: 401, request_id: 'auth-check-1' });
  });

  it('replaces an id that is too long or holds other characters, and makes one when none comes', async () => {
    for (const given of ['x'.repeat(MAX_REQUEST_ID_CHARS + 1), 'has space', '<script>', 'quote"d', '']) {
      const r = await t.request('GET', '/api/health', undefined, { token: null, headers: { 'X-Request-Id': given } });
      const id = r.headers.get('x-request-id')!;
      expect(id, JSON.stringify(given)).to.match(NEW_ID);
      expect(accessLine(id)).to.not.equal(undefined);
    }
    const kept = 'y'.repeat(MAX_REQUEST_ID_CHARS);
    const longest = await t.request('GET', '/api/health', undefined, {
      token: null,
      headers: { 'X-Request-Id': kept },
    });
    expect(longest.headers.get('x-request-id')).to.equal(kept);
    const none = await t.request('GET', '/api/health', undefined, { token: null });
    expect(none.headers.get('x-request-id')).to.match(NEW_ID);
  });

  it('keeps the id through the express adapter', async () => {
    const app = express();
    app.use(createExpressHandler(t.server.dispatcher));
    const mounted = await new Promise<NodeServer>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const url = `http://127.0.0.1:${(mounted.address() as AddressInfo).port}`;
      const res = await fetch(`${url}/api/find/items/nope`, {
        headers: { Authorization: `Bearer ${await t.adminToken()}`, 'X-Request-Id': 'via-express' },
      });
      expect(res.headers.get('x-request-id')).to.equal('via-express');
      expect(await res.json()).to.deep.equal({ error: 'Record not found', request_id: 'via-express' });
    } finally {
      await new Promise((resolve) => mounted.close(resolve));
    }
  });

  it('writes the id as `reqId` in JSON and text lines, beside the fields or the error', () => {
    for (const format of ['json', 'text'] as const) {
      const written: string[] = [];
      const { log } = createServerLog({ format, destination: { write: (line: string) => written.push(line) } });
      log('warn', 'with fields', { a: 1 }, 'req-1');
      log('error', 'with an error', new Error('boom'), 'req-2');
      log('info', 'with nothing', undefined, 'req-3');
      log('info', 'outside any request', { a: 2 });
      if (format === 'json') {
        const [fields, error, nothing, outside] = written.map((l) => JSON.parse(l) as Record<string, any>);
        expect(fields).to.include({ a: 1, reqId: 'req-1', msg: 'with fields' });
        expect(error).to.include({ reqId: 'req-2' });
        expect(error!.err.message).to.equal('boom');
        expect(nothing).to.include({ reqId: 'req-3' });
        expect(outside).to.not.have.property('reqId');
      } else {
        expect(written[0]).to.match(/WARN  with fields a=1 reqId=req-1\n$/);
        expect(written[1]).to.match(/ERROR with an error reqId=req-2\nError: boom/);
      }
    }
  });

  it('names each WebSocket message by an id of its own, in its Error frame and its log line', async () => {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/api/ws`, {
      headers: { authorization: `Bearer ${await t.adminToken()}` },
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    try {
      const replies: Array<Record<string, unknown>> = [];
      ws.on('message', (data: Buffer) => replies.push(JSON.parse(data.toString()) as Record<string, unknown>));
      for (const messageId of ['a1', 'a2'])
        ws.send(JSON.stringify({ type: 'FindById', messageId, payload: { collection: 'items', id: 'nope' } }));
      for (let i = 0; i < 250 && replies.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      expect(replies.map((r) => [r.type, r.code, r.messageId])).to.deep.equal([
        ['Error', 404, 'a1'],
        ['Error', 404, 'a2'],
      ]);
      const ids = replies.map((r) => r.request_id as string);
      expect(ids[0]).to.match(NEW_ID);
      expect(ids[1]).to.match(NEW_ID).and.not.equal(ids[0]);
      for (const id of ids) expect(lines.find((l) => l.msg === 'WS /api/ws -> 404' && l.requestId === id)).to.exist;
    } finally {
      ws.close();
    }
  });
});
