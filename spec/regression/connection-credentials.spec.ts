/**
 * Credentials are checked for the life of a connection.
 * Before the fix a WebSocket or SSE stream opened with a token kept reading,
 * writing and receiving notifications after its key was revoked, its token
 * expired or its permissions were narrowed. Everything here runs over real
 * sockets against a real server with a ManualClock; servers that must prove
 * the commit-driven path use a one-minute periodic check, so only the
 * revoking commit can have closed the connection in time.
 */
import http from 'node:http';
import { expect } from 'chai';
import WebSocket from 'ws';
import { ADMIN_KEY, TestServer, errorBody } from '../helpers/test-server.js';

const TOKEN_TTL_MS = 3600 * 1000;
/** The promise: a revoked key or an expired token ends its connections within a second. */
const WITHIN_MS = 1000;
/** A periodic check so rare it cannot be what closed a connection during a test. */
const NO_TIMER = { credentialCheckMs: 60_000 };

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A JSON WebSocket client that records every frame and the close. */
class WsClient {
  readonly frames: any[] = [];
  closed: { code: number; reason: string } | undefined;
  private n = 0;
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => this.frames.push(JSON.parse(data.toString())));
    ws.on('close', (code: number, reason: Buffer) => {
      this.closed = { code, reason: reason.toString() };
    });
  }

  static async open(t: TestServer, token: string): Promise<WsClient> {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/api/ws`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    return new WsClient(ws);
  }

  /** Sends a request and resolves with the frame echoing its messageId. */
  async request(type: string, payload: unknown): Promise<any> {
    const messageId = `m${++this.n}`;
    this.ws.send(JSON.stringify({ type, messageId, payload }));
    await until(() => this.reply(messageId) !== undefined, 5000, `the reply to ${type}`);
    return this.reply(messageId);
  }

  notifications(collection: string): any[] {
    return this.frames.filter((f) => f.type === 'MutationNotification' && f.payload.collection === collection);
  }

  unsolicitedErrors(): any[] {
    return this.frames.filter((f) => f.type === 'Error' && f.messageId === undefined);
  }

  close(): void {
    this.ws.close();
  }

  private reply(messageId: string): any {
    return this.frames.find((f) => f.messageId === messageId);
  }
}

interface SseStream {
  events: Array<{ event: string; data: any }>;
  ended: boolean;
  close(): void;
}

async function openSse(t: TestServer, collection: string, token: string): Promise<SseStream> {
  const out: SseStream = { events: [], ended: false, close: () => undefined };
  await new Promise<void>((resolve, reject) => {
    const req = http.get(
      `${t.url}/api/subscribe/${collection}`,
      { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`SSE answered ${res.statusCode}`));
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, i);
            buf = buf.slice(i + 2);
            out.events.push({
              event: /^event: (.*)$/m.exec(frame)![1]!,
              data: JSON.parse(/^data: (.*)$/m.exec(frame)![1]!),
            });
          }
          resolve();
        });
        res.on('end', () => {
          out.ended = true;
        });
      },
    );
    req.on('error', reject);
    out.close = () => req.destroy();
  });
  return out;
}

describe('credentials are checked for the life of a connection', function () {
  this.timeout(20_000);
  let t: TestServer;
  afterEach(async () => {
    await t?.stop();
  });

  async function createKey(body: Record<string, unknown>): Promise<{ id: string; key: string; token: string }> {
    const r = await t.request('POST', '/api/auth/keys', body);
    expect(r.status).to.equal(201);
    return { id: r.body.id, key: r.body.key, token: await t.tokenFor(r.body.key) };
  }

  /** Inserts as admin and waits until an admin subscriber saw it, so the fan-out to everyone else has happened too. */
  async function insertSeen(witness: WsClient, collection: string, id: string, token?: string): Promise<void> {
    const before = witness.notifications(collection).length;
    expect((await t.request('POST', `/api/insert/${collection}`, { id }, token ? { token } : {})).status).to.equal(201);
    await until(() => witness.notifications(collection).length > before, 5000, 'the witness notification');
  }

  async function witnessOf(collection: string, token?: string): Promise<WsClient> {
    const w = await WsClient.open(t, token ?? (await t.adminToken()));
    expect((await w.request('Subscribe', { collection })).type).to.equal('Success');
    return w;
  }

  describe('over WebSocket', () => {
    it(
      'ends a subscribed connection with a final 401 Error and close 4001 when its key is revoked, and sends ' +
        'nothing after',
      async () => {
        t = await TestServer.start(NO_TIMER);
        const user = await createKey({ name: 'doomed' });
        const ws = await WsClient.open(t, user.token);
        expect((await ws.request('Subscribe', { collection: 'feed' })).type).to.equal('Success');
        const witness = await witnessOf('feed');
        await insertSeen(witness, 'feed', 'before');
        expect(ws.notifications('feed')).to.have.length(1);

        expect((await t.request('DELETE', `/api/auth/keys/${user.id}`)).status).to.equal(200);
        const revokedAt = Date.now();
        await until(() => ws.closed !== undefined, WITHIN_MS, 'the close');
        expect(Date.now() - revokedAt).to.be.below(WITHIN_MS);
        const last = ws.frames.at(-1);
        expect(last).to.deep.equal({ type: 'Error', code: 401, message: 'API key has been revoked' });
        expect(ws.closed).to.deep.equal({ code: 4001, reason: 'API key has been revoked' });

        await insertSeen(witness, 'feed', 'after');
        expect(ws.notifications('feed')).to.have.length(1);
        witness.close();
      },
    );

    it('ends every connection of the revoked key and leaves other keys connected', async () => {
      t = await TestServer.start(NO_TIMER);
      const doomed = await createKey({ name: 'doomed' });
      const kept = await createKey({ name: 'kept' });
      const a = await WsClient.open(t, doomed.token);
      const b = await WsClient.open(t, doomed.token);
      const other = await WsClient.open(t, kept.token);
      await other.request('Subscribe', { collection: 'feed' });
      await t.request('DELETE', `/api/auth/keys/${doomed.id}`);
      await until(() => a.closed !== undefined && b.closed !== undefined, WITHIN_MS, 'both closes');
      expect((await other.request('FindAll', { collection: 'feed' })).type).to.equal('Success');
      await t.request('POST', '/api/insert/feed', { id: 'x' });
      await until(() => other.notifications('feed').length === 1, 5000, 'the notification of the kept key');
      expect(other.closed).to.equal(undefined);
      expect(t.server.credentialWatch.size).to.equal(1);
      other.close();
      await until(() => t.server.credentialWatch.size === 0, 5000, 'the watch to forget the closed connection');
    });

    it('ends a connection with "Token has expired" within a second of the clock passing the token exp', async () => {
      t = await TestServer.start();
      const user = await createKey({ name: 'short-lived' });
      const ws = await WsClient.open(t, user.token);
      await ws.request('Subscribe', { collection: 'feed' });
      t.clock.advance(TOKEN_TTL_MS - 5000);
      await new Promise((r) => setTimeout(r, 400));
      expect(ws.closed, 'still valid five seconds before exp').to.equal(undefined);

      t.clock.advance(6000);
      const expiredAt = Date.now();
      await until(() => ws.closed !== undefined, WITHIN_MS, 'the close');
      expect(Date.now() - expiredAt).to.be.below(WITHIN_MS);
      expect(ws.frames.at(-1)).to.deep.equal({ type: 'Error', code: 401, message: 'Token has expired' });
      expect(ws.closed!.code).to.equal(4001);
    });

    it('keeps a connection of the same key with a later token open while the older one expires', async () => {
      t = await TestServer.start();
      const user = await createKey({ name: 'renewing' });
      const old = await WsClient.open(t, user.token);
      t.clock.advance(TOKEN_TTL_MS / 2);
      const fresh = await WsClient.open(t, await t.tokenFor(user.key));
      t.clock.advance(TOKEN_TTL_MS / 2 + 1000);
      await until(() => old.closed !== undefined, WITHIN_MS, 'the old connection to close');
      expect((await fresh.request('FindAll', { collection: 'feed' })).type).to.equal('Success');
      expect(fresh.closed).to.equal(undefined);
      fresh.close();
    });

    it('refuses a request sent after the token expired with a 401 echoing its messageId, then closes', async () => {
      t = await TestServer.start(NO_TIMER);
      const user = await createKey({ name: 'late' });
      const ws = await WsClient.open(t, user.token);
      expect((await ws.request('FindAll', { collection: 'feed' })).type).to.equal('Success');
      t.clock.advance(TOKEN_TTL_MS + 1000);
      const reply = await ws.request('Insert', { collection: 'feed', record: { id: 'late-write' } });
      expect(reply).to.deep.equal({
        type: 'Error',
        code: 401,
        message: 'Token has expired',
        messageId: 'm2',
        request_id: reply.request_id,
      });
      await until(() => ws.closed !== undefined, WITHIN_MS, 'the close');
      expect(ws.closed!.code).to.equal(4001);
      const fresh = await t.tokenFor(ADMIN_KEY);
      expect((await t.request('GET', '/api/find/feed/late-write', undefined, { token: fresh })).status).to.equal(404);
    });

    it('sends no notification to a connection whose token expired between two periodic checks', async () => {
      t = await TestServer.start(NO_TIMER);
      const user = await createKey({ name: 'quiet' });
      const ws = await WsClient.open(t, user.token);
      await ws.request('Subscribe', { collection: 'feed' });
      t.clock.advance(TOKEN_TTL_MS + 1000);
      const admin = await t.tokenFor(ADMIN_KEY);
      const witness = await witnessOf('feed', admin);
      await insertSeen(witness, 'feed', 'unseen', admin);
      await until(() => ws.closed !== undefined, WITHIN_MS, 'the close');
      expect(ws.notifications('feed')).to.deep.equal([]);
      expect(ws.frames.at(-1)).to.deep.equal({ type: 'Error', code: 401, message: 'Token has expired' });
      witness.close();
    });

    it('applies narrowed collection permissions to the next request and ends the subscription it no longer allows', async () => {
      t = await TestServer.start(NO_TIMER);
      const user = await createKey({
        name: 'narrowed',
        collection_permissions: { a: { read: true }, b: { read: true } },
      });
      const ws = await WsClient.open(t, user.token);
      expect((await ws.request('Subscribe', { collection: 'a' })).type).to.equal('Success');
      expect((await ws.request('Subscribe', { collection: 'b' })).type).to.equal('Success');
      const put = await t.request('PUT', `/api/auth/keys/${user.id}`, {
        name: 'narrowed',
        collection_permissions: { b: { read: true } },
      });
      expect(put.status).to.equal(200);

      await until(() => ws.unsolicitedErrors().length > 0, WITHIN_MS, 'the subscription Error');
      const [ended] = ws.unsolicitedErrors();
      expect(ended.code).to.equal(403);
      expect(ended.message).to.contain("'a'");
      const findA = await ws.request('FindAll', { collection: 'a' });
      expect(findA).to.include({ type: 'Error', code: 403 });
      expect((await ws.request('FindAll', { collection: 'b' })).type).to.equal('Success');
      expect((await ws.request('Subscribe', { collection: 'a' })).code).to.equal(403);

      const witness = await witnessOf('a');
      await insertSeen(witness, 'a', 'a1');
      await t.request('POST', '/api/insert/b', { id: 'b1' });
      await until(() => ws.notifications('b').length === 1, 5000, 'the notification on b');
      expect(ws.notifications('a')).to.deep.equal([]);
      expect(ws.closed).to.equal(undefined);
      witness.close();
      ws.close();
    });

    it('applies a dropped admin flag to the next request', async () => {
      t = await TestServer.start(NO_TIMER);
      const user = await createKey({ name: 'demoted', admin: true });
      const ws = await WsClient.open(t, user.token);
      expect((await ws.request('GetCollections', {})).type).to.equal('Success');
      expect((await t.request('PUT', `/api/auth/keys/${user.id}`, { name: 'demoted', admin: false })).status).to.equal(
        200,
      );
      expect(await ws.request('GetCollections', {})).to.include({ type: 'Error', code: 403 });
      expect((await ws.request('FindAll', { collection: 'feed' })).type).to.equal('Success');
      ws.close();
    });
  });

  describe('over server-sent events', () => {
    it('ends the stream with a final error event when the key is revoked, and sends no mutation after', async () => {
      t = await TestServer.start(NO_TIMER);
      const user = await createKey({ name: 'sse-doomed' });
      const s = await openSse(t, 'feed', user.token);
      const witness = await witnessOf('feed');
      await insertSeen(witness, 'feed', 'before');
      await until(() => s.events.some((e) => e.event === 'mutation'), 5000, 'the first mutation');

      await t.request('DELETE', `/api/auth/keys/${user.id}`);
      const revokedAt = Date.now();
      await until(() => s.ended, WITHIN_MS, 'the end of the stream');
      expect(Date.now() - revokedAt).to.be.below(WITHIN_MS);
      const last = s.events.at(-1)!;
      expect(last.event).to.equal('error');
      expect(last.data).to.include({ code: 401, message: 'API key has been revoked' });

      await insertSeen(witness, 'feed', 'after');
      expect(s.events.filter((e) => e.event === 'mutation')).to.have.length(1);
      witness.close();
    });

    it('ends the stream with "Token has expired" within a second of the clock passing the token exp', async () => {
      t = await TestServer.start();
      const user = await createKey({ name: 'sse-short' });
      const s = await openSse(t, 'feed', user.token);
      t.clock.advance(TOKEN_TTL_MS + 1000);
      const expiredAt = Date.now();
      await until(() => s.ended, WITHIN_MS, 'the end of the stream');
      expect(Date.now() - expiredAt).to.be.below(WITHIN_MS);
      expect(s.events.at(-1)).to.deep.include({ event: 'error' });
      expect(s.events.at(-1)!.data).to.include({ code: 401, message: 'Token has expired' });
    });

    it('ends the stream with an error naming the collection once the key may no longer read it', async () => {
      t = await TestServer.start(NO_TIMER);
      const user = await createKey({
        name: 'sse-narrowed',
        collection_permissions: { feed: { read: true }, other: { read: true } },
      });
      const s = await openSse(t, 'feed', user.token);
      const kept = await openSse(t, 'other', user.token);
      await t.request('PUT', `/api/auth/keys/${user.id}`, {
        name: 'sse-narrowed',
        collection_permissions: { other: { read: true } },
      });
      await until(() => s.ended, WITHIN_MS, 'the end of the stream');
      const last = s.events.at(-1)!;
      expect(last.event).to.equal('error');
      expect(last.data.error).to.contain("'feed'");
      await t.request('POST', '/api/insert/other', { id: 'o1' });
      await until(
        () => kept.events.some((e) => e.event === 'mutation'),
        5000,
        'the mutation on the still readable collection',
      );
      expect(kept.ended).to.equal(false);
      kept.close();
    });
  });

  describe('PUT /api/auth/keys/{id}', () => {
    beforeEach(async () => {
      t = await TestServer.start();
    });

    it('replaces the rights of a key, keeps its id and secret, and applies them to tokens already issued', async () => {
      const created = await t.request('POST', '/api/auth/keys', {
        name: 'before',
        collection_permissions: { a: ['read', 'write'] },
      });
      const token = await t.tokenFor(created.body.key);
      expect((await t.request('POST', '/api/find/a', {}, { token })).status).to.equal(200);
      const put = await t.request('PUT', `/api/auth/keys/${created.body.id}`, {
        name: 'after',
        collection_permissions: { b: ['read'] },
        rate_limit: 5,
      });
      expect(put.status).to.equal(200);
      expect(put.body).to.deep.equal({
        id: created.body.id,
        name: 'after',
        admin: false,
        created_at: created.body.created_at,
        collection_permissions: { b: { read: true, write: false } },
        rate_limit: 5,
      });
      expect((await t.request('POST', '/api/find/a', {}, { token })).status).to.equal(403);
      expect((await t.request('POST', '/api/find/b', {}, { token })).status).to.equal(200);
      expect(
        (await t.request('POST', '/api/auth/token', { api_key: created.body.key }, { token: null })).status,
      ).to.equal(200);
      const listed = (await t.request('GET', '/api/auth/keys')).body.keys.find(
        (k: { id: string }) => k.id === created.body.id,
      );
      expect(listed).to.deep.equal(put.body);
    });

    it('validates the body as create does, and answers 404 for an unknown key and 400 for the bootstrap admin key', async () => {
      const created = await t.request('POST', '/api/auth/keys', { name: 'k' });
      for (const body of [
        { admin: 'yes' },
        { colour: 'red' },
        { collection_permissions: { a: ['delete'] } },
        { rate_limit: -1 },
      ]) {
        const r = await t.request('PUT', `/api/auth/keys/${created.body.id}`, body);
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(r.body.error).to.be.a('string').and.not.empty;
      }
      expect(errorBody(await t.request('PUT', '/api/auth/keys/nope', { name: 'x' }))).to.deep.equal({
        error: "API key 'nope' not found",
      });
      expect((await t.request('PUT', '/api/auth/keys/admin', { name: 'x' })).status).to.equal(400);
      expect(
        (await t.request('GET', '/api/auth/keys')).body.keys.find((k: { id: string }) => k.id === created.body.id).name,
      ).to.equal('k');
    });

    it('is admin-only', async () => {
      const user = await createKey({ name: 'self-promoter' });
      const r = await t.request('PUT', `/api/auth/keys/${user.id}`, { name: 'x', admin: true }, { token: user.token });
      expect(r.status).to.equal(403);
      expect((await t.request('GET', '/api/collections', undefined, { token: user.token })).status).to.equal(403);
    });
  });
});
