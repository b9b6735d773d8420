/**
 * Wire compatibility found by the official ekoDB examples.
 * - Every WebSocket request type answers exactly once whether or not it
 *   carries a messageId, echoing it only when sent (the raw subscribe
 *   examples send Unsubscribe without one and used to wait forever).
 * - A UUID value has the 8-4-4-4-12 shape of letters and digits, as the real
 *   server accepts (the KV-wrapped functions example stores one with a `g`);
 *   strict RFC 4122 checking is the schema option `format: "rfc4122"`.
 * - A search body with a vector and no query is a nearest-neighbour search.
 * Over real HTTP and a real WebSocket.
 */
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import WebSocket from 'ws';
import { decode as mpDecode } from '@msgpack/msgpack';
import { TestServer } from '../helpers/test-server.js';

/** A raw WebSocket that keeps every frame it receives, as the official raw examples do. */
class RawSocket {
  readonly frames: any[] = [];
  private waiters: Array<() => void> = [];
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      this.frames.push(isBinary ? mpDecode(data) : JSON.parse(data.toString()));
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static async open(t: TestServer): Promise<RawSocket> {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/api/ws`, {
      headers: { authorization: `Bearer ${await t.adminToken()}` },
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    return new RawSocket(ws);
  }

  send(frame: unknown): void {
    this.ws.send(JSON.stringify(frame));
  }

  /** Resolves once `check` holds, or after `ms` (the caller's assertion then reports what arrived). */
  async until(check: () => boolean, ms = 5000): Promise<void> {
    const end = Date.now() + ms;
    while (!check() && Date.now() < end) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, end - Date.now());
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /**
   * Sends `frame` and returns every frame it was answered with: waits for
   * `expected` replies, then makes a round trip with a marked request so any
   * extra reply sent alongside arrives before it.
   */
  async exchange(frame: unknown, expected: number): Promise<any[]> {
    const start = this.frames.length;
    this.send(frame);
    await this.until(() => this.frames.length - start >= expected);
    const marker = `marker-${start}`;
    this.send({ type: 'GetCollections', messageId: marker, payload: {} });
    await this.until(() => this.frames.some((f) => f.messageId === marker));
    expect(
      this.frames.some((f) => f.messageId === marker),
      'the marker request was answered',
    ).to.equal(true);
    return this.frames.slice(start).filter((f) => f.messageId !== marker);
  }

  close(): void {
    this.ws.close();
  }
}

type Variant = 'with' | 'without';

interface Row {
  type: string;
  payload: (v: Variant) => Record<string, unknown>;
  /** The one reply expected (its type, and code for an Error); null for none. */
  reply: (v: Variant) => { type: string; code?: number } | null;
}

const success = () => ({ type: 'Success' });

/** Every client -> server type of protocol.md §3.4, plus an unknown one. */
const ROWS: Row[] = [
  { type: 'Hello', payload: () => ({ formats: ['msgpack', 'json'] }), reply: () => ({ type: 'Welcome' }) },
  { type: 'FindAll', payload: () => ({ collection: 'wire' }), reply: success },
  {
    type: 'Query',
    payload: () => ({
      collection: 'wire',
      filter: { type: 'Condition', content: { field: 'n', operator: 'Eq', value: 1 } },
    }),
    reply: success,
  },
  { type: 'FindById', payload: () => ({ collection: 'wire', id: 'u1' }), reply: success },
  { type: 'Insert', payload: () => ({ collection: 'wire', record: { n: 2 } }), reply: success },
  { type: 'Update', payload: () => ({ collection: 'wire', id: 'u1', record: { n: 1 } }), reply: success },
  { type: 'Delete', payload: (v) => ({ collection: 'wire', id: `d-${v}` }), reply: success },
  { type: 'BatchInsert', payload: () => ({ collection: 'wire', records: [{ n: 3 }] }), reply: success },
  { type: 'BatchUpdate', payload: () => ({ collection: 'wire', updates: [['u1', { n: 1 }]] }), reply: success },
  { type: 'BatchDelete', payload: (v) => ({ collection: 'wire', ids: [`bd-${v}`] }), reply: success },
  { type: 'TextSearch', payload: () => ({ collection: 'wire', query: 'hello' }), reply: success },
  { type: 'DistinctValues', payload: () => ({ collection: 'wire', field: 'n' }), reply: success },
  {
    type: 'UpdateWithAction',
    payload: () => ({ collection: 'wire', id: 'u1', action: 'increment', field: 'n', value: 0 }),
    reply: success,
  },
  { type: 'CreateCollection', payload: (v) => ({ name: `made-${v}`, schema: {} }), reply: success },
  { type: 'GetCollections', payload: () => ({}), reply: success },
  { type: 'DeleteCollection', payload: (v) => ({ name: `drop-${v}` }), reply: success },
  { type: 'Subscribe', payload: () => ({ collection: 'watched' }), reply: success },
  { type: 'Unsubscribe', payload: () => ({ collection: 'watched' }), reply: success },
  { type: 'ChatSend', payload: () => ({ chat_id: 'c1', message: 'hi' }), reply: () => ({ type: 'ChatStreamError' }) },
  // The chat 'c1' does not exist, so ChatSend ends at once and a tool result is refused.
  { type: 'RegisterClientTools', payload: () => ({ chat_id: 'c1', tools: [] }), reply: success },
  {
    type: 'ClientToolResult',
    payload: () => ({ chat_id: 'c1', call_id: 'k', success: true }),
    reply: () => ({ type: 'Error', code: 404 }),
  },
  // protocol.md §3.2: an ack to a CancelChat without a messageId could be misrouted to another pending request.
  { type: 'CancelChat', payload: () => ({ chat_id: 'c1' }), reply: (v) => (v === 'with' ? success() : null) },
  // With no provider configured the offline `local` provider answers.
  { type: 'RawComplete', payload: () => ({ system_prompt: 's', message: 'm' }), reply: success },
  { type: 'NoSuchType', payload: () => ({}), reply: () => ({ type: 'Error', code: 400 }) },
];

describe('wire compatibility with the official examples', function () {
  this.timeout(60_000);
  let t: TestServer;
  beforeEach(async () => {
    t = await TestServer.start();
  });
  afterEach(async () => {
    await t.stop();
  });

  describe('WebSocket replies with and without messageId', () => {
    beforeEach(async () => {
      for (const id of ['u1', 'd-with', 'd-without', 'bd-with', 'bd-without']) {
        expect((await t.request('POST', '/api/insert/wire', { id, n: 1, text: 'hello world' })).status).to.equal(201);
      }
      for (const c of ['drop-with', 'drop-without'])
        expect((await t.request('POST', `/api/collections/${c}`, {})).status).to.equal(201);
    });

    for (const row of ROWS) {
      it(`answers ${row.type} exactly as protocol.md says, echoing messageId only when one was sent`, async () => {
        for (const v of ['with', 'without'] as const) {
          const ws = await RawSocket.open(t);
          const messageId = `${row.type}-1`;
          const expected = row.reply(v);
          const frame = { type: row.type, payload: row.payload(v), ...(v === 'with' ? { messageId } : {}) };
          const replies = await ws.exchange(frame, expected ? 1 : 0);
          ws.close();
          const what = `${row.type} ${v} messageId: ${JSON.stringify(replies)}`;
          expect(replies, what).to.have.length(expected ? 1 : 0);
          if (!expected) continue;
          const [reply] = replies;
          expect(reply.type, what).to.equal(expected.type);
          if (expected.code !== undefined) expect(reply.code, what).to.equal(expected.code);
          if (reply.type === 'Success') expect(reply.payload, what).to.have.property('data');
          if (row.type === 'Hello' || v === 'without') expect(reply, what).to.not.have.property('messageId');
          else expect(reply.messageId, what).to.equal(messageId);
        }
      });
    }

    it('runs the raw subscribe example: Subscribe, a notification, and Unsubscribe, none carrying a messageId', async () => {
      const ws = await RawSocket.open(t);
      const [sub] = await ws.exchange({ type: 'Subscribe', payload: { collection: 'feed' } }, 1);
      expect(sub.type).to.equal('Success');
      expect(sub.payload.data.subscription_id).to.match(/^sub_[0-9a-f]{32}$/);
      expect((await t.request('POST', '/api/insert/feed', { id: 'a' })).status).to.equal(201);
      await ws.until(() => ws.frames.some((f) => f.type === 'MutationNotification'));
      const [un] = await ws.exchange({ type: 'Unsubscribe', payload: { collection: 'feed' } }, 1);
      expect(un).to.deep.equal({
        type: 'Success',
        payload: { data: { collection: 'feed', found: true, unsubscribed: true } },
      });
      expect((await t.request('POST', '/api/insert/feed', { id: 'b' })).status).to.equal(201);
      await ws.exchange({ type: 'GetCollections', payload: {} }, 1);
      expect(ws.frames.filter((f) => f.type === 'MutationNotification')).to.have.length(1);
      ws.close();
    });

    it('treats a null messageId as absent', async () => {
      const ws = await RawSocket.open(t);
      const [reply] = await ws.exchange({ type: 'GetCollections', messageId: null, payload: {} }, 1);
      expect(reply.type).to.equal('Success');
      expect(reply).to.not.have.property('messageId');
      expect(await ws.exchange({ type: 'CancelChat', messageId: null, payload: { chat_id: 'c1' } }, 0)).to.deep.equal(
        [],
      );
      ws.close();
    });

    it('ends a ChatSend stream with a ChatStreamError naming the chat, so the client does not wait', async () => {
      const ws = await RawSocket.open(t);
      const [reply] = await ws.exchange({ type: 'ChatSend', payload: { chat_id: 'chat-7', message: 'hello' } }, 1);
      expect(reply.type).to.equal('ChatStreamError');
      expect(reply.payload.chat_id).to.equal('chat-7');
      expect(reply.payload.error).to.match(/not found/i);
      ws.close();
    });
  });

  describe('UUID values', () => {
    /** Stored by the official KV-wrapped functions example; `g` is not a hex digit. */
    const EXAMPLE = 'b1ffcd00-0d1c-5fg9-8a1a-000000000000';
    const STRICT = '123e4567-e89b-12d3-a456-426614174000';

    it('stores a UUID wrapper of 8-4-4-4-12 letters and digits as a UUID, in a record and in the KV store', async () => {
      const ins = await t.request('POST', '/api/insert/things', { ref: { type: 'UUID', value: EXAMPLE } });
      expect(ins.status, ins.text).to.equal(201);
      expect((await t.request('GET', `/api/find/things/${ins.body.id}`)).body.ref).to.deep.equal({
        type: 'UUID',
        value: EXAMPLE,
      });
      expect(
        (await t.request('POST', '/api/kv/set/session', { value: { type: 'UUID', value: EXAMPLE } })).status,
      ).to.be.within(200, 201);
      expect((await t.request('GET', '/api/kv/get/session')).body.value).to.deep.equal({
        type: 'UUID',
        value: EXAMPLE,
      });
    });

    it('refuses a UUID wrapper without the 8-4-4-4-12 shape with a 400 naming the field', async () => {
      const bad = await t.request('POST', '/api/insert/things', { ref: { type: 'UUID', value: 'b1ffcd00-0d1c-5fg9' } });
      expect(bad.status).to.equal(400);
      expect(bad.body.error).to.match(/Invalid UUID value for field 'ref': expected 8-4-4-4-12 letters or digits/);
    });

    it('accepts the same value, bare or wrapped, in a schema UUID field and reads it back as a UUID', async () => {
      expect(
        (await t.request('POST', '/api/collections/loose', { fields: { ref: { field_type: 'UUID', required: true } } }))
          .status,
      ).to.equal(201);
      for (const ref of [EXAMPLE, { type: 'UUID', value: EXAMPLE }]) {
        const ins = await t.request('POST', '/api/insert/loose', { ref });
        expect(ins.status, ins.text).to.equal(201);
        expect((await t.request('GET', `/api/find/loose/${ins.body.id}`)).body.ref).to.deep.equal({
          type: 'UUID',
          value: EXAMPLE,
        });
      }
    });

    it('checks strict RFC 4122 in a field saved with format "rfc4122", and shows the option in GET /api/schemas', async () => {
      const made = await t.request('POST', '/api/collections/strict', {
        fields: { ref: { field_type: 'UUID', format: 'rfc4122' } },
      });
      expect(made.status, made.text).to.equal(201);
      expect((await t.request('GET', '/api/schemas/strict')).body.fields.ref).to.include({
        field_type: 'UUID',
        format: 'rfc4122',
      });
      const bad = await t.request('POST', '/api/insert/strict', { ref: { type: 'UUID', value: EXAMPLE } });
      expect(bad.status).to.equal(400);
      expect(bad.body.details).to.deep.equal([
        {
          field: 'ref',
          constraint: 'format',
          expected: 'rfc4122',
          actual: EXAMPLE,
          message:
            `Field 'ref' must be an RFC 4122 UUID: hex digits, version 1-8, variant 8, 9, a or b (got ` + `${EXAMPLE})`,
        },
      ]);
      expect((await t.request('POST', '/api/insert/strict', { ref: STRICT })).status).to.equal(201);
    });

    it('adds and clears the format with a partial schema update; other fields show no format', async () => {
      expect(
        (
          await t.request('POST', '/api/collections/evolving', {
            fields: { ref: { field_type: 'UUID' }, name: { field_type: 'String' } },
          })
        ).status,
      ).to.equal(201);
      expect((await t.request('GET', '/api/schemas/evolving')).body.fields.ref).to.not.have.property('format');
      expect(
        (await t.request('PUT', '/api/schemas/evolving', { constraints: { ref: { format: 'rfc4122' } } })).status,
      ).to.equal(200);
      const after = (await t.request('GET', '/api/schemas/evolving')).body.fields;
      expect(after.ref.format).to.equal('rfc4122');
      expect(after.name).to.not.have.property('format');
      expect((await t.request('POST', '/api/insert/evolving', { ref: EXAMPLE })).status).to.equal(400);
      expect(
        (await t.request('PUT', '/api/schemas/evolving', { constraints: { ref: { format: null } } })).status,
      ).to.equal(200);
      expect((await t.request('GET', '/api/schemas/evolving')).body.fields.ref).to.not.have.property('format');
      expect((await t.request('POST', '/api/insert/evolving', { ref: EXAMPLE })).status).to.equal(201);
    });

    it('keeps the format across a restart', async () => {
      expect(
        (
          await t.request('POST', '/api/collections/kept', {
            fields: { ref: { field_type: 'UUID', format: 'rfc4122' } },
          })
        ).status,
      ).to.equal(201);
      const dataDir = t.dataDir;
      await t.stop({ keepData: true });
      t = await TestServer.start({ dataDir });
      try {
        expect((await t.request('GET', '/api/schemas/kept')).body.fields.ref.format).to.equal('rfc4122');
        expect((await t.request('POST', '/api/insert/kept', { ref: EXAMPLE })).status).to.equal(400);
      } finally {
        await t.stop();
        rmSync(dataDir, { recursive: true, force: true });
        t = await TestServer.start();
      }
    });

    it('refuses an unknown format, or a format on a field that is not a UUID, at save time', async () => {
      const unknown = await t.request('POST', '/api/collections/c1', {
        fields: { ref: { field_type: 'UUID', format: 'uuid4' } },
      });
      expect(unknown.status).to.equal(400);
      expect(unknown.body.error).to.match(/Field 'ref': format must be "rfc4122"/);
      const onString = await t.request('POST', '/api/collections/c2', {
        fields: { ref: { field_type: 'String', format: 'rfc4122' } },
      });
      expect(onString.status).to.equal(400);
      expect(onString.body.error).to.match(/option 'format' is not allowed for field_type String/);
      expect((await t.request('GET', '/api/collections/c1')).status).to.equal(404);
    });
  });

  describe('search with a vector and no query', () => {
    beforeEach(async () => {
      const docs = [
        { id: 'north', title: 'north facing', embedding: { type: 'Vector', value: [1, 0, 0] } },
        { id: 'east', title: 'east facing', embedding: { type: 'Vector', value: [0, 1, 0] } },
        { id: 'up', title: 'pointing up', embedding: [0, 0, 1] },
      ];
      expect(
        (await t.request('POST', '/api/batch/insert/places', { inserts: docs.map((data) => ({ data })) })).status,
      ).to.be.within(200, 201);
    });

    it('is a nearest-neighbour search, as with query ""', async () => {
      const r = await t.request('POST', '/api/search/places', { vector: [0.9, 0.1, 0], vector_k: 2 });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.results.map((x: any) => x.record.id)).to.deep.equal(['north', 'east']);
      expect(r.body.results[0].matched_fields).to.deep.equal([]);
      expect(r.body.execution_time_ms).to.be.a('number');
      const same = await t.request('POST', '/api/search/places', { query: '', vector: [0.9, 0.1, 0], vector_k: 2 });
      expect(same.body.results).to.deep.equal(r.body.results);
    });

    it('also answers over the WebSocket TextSearch with the vector in options', async () => {
      const ws = await RawSocket.open(t);
      const [reply] = await ws.exchange(
        {
          type: 'TextSearch',
          messageId: 'v',
          payload: { collection: 'places', options: { vector: [0, 0, 1], vector_k: 1 } },
        },
        1,
      );
      ws.close();
      expect(reply.type, JSON.stringify(reply)).to.equal('Success');
      expect(reply.payload.data.map((x: any) => x.record.id)).to.deep.equal(['up']);
    });

    it('is still a 400 that says what to send when there is neither a query nor a vector', async () => {
      for (const body of [{}, { query: '' }, { vector_k: 3 }]) {
        const r = await t.request('POST', '/api/search/places', body);
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(r.body.error).to.equal(
          "Give a 'query' (text search), a 'vector' (nearest-neighbour search), or both (hybrid search)",
        );
      }
      const wrong = await t.request('POST', '/api/search/places', { query: 7, vector: [1, 0, 0] });
      expect(wrong.status).to.equal(400);
      expect(wrong.body.error).to.equal("'query' must be a string");
    });
  });
});
