/**
 * Chat sessions and messages through a real server (protocol.md 2.12), with
 * a scripted in-process provider (spec/helpers/scripted-provider.ts): every
 * route, typed and untyped message records, retrieval (text and, with the
 * offline embedder, vector), 404s, bad bodies, classified provider failures.
 */
import { expect } from 'chai';
import { ProviderFailed } from '../../lib/errors.js';
import { bare, TestServer } from '../helpers/test-server.js';
import { directory, ScriptedProvider } from '../helpers/scripted-provider.js';

const DOCS = [
  { title: 'Refund policy', body: 'Refunds are accepted within 30 days of purchase.' },
  { title: 'Shipping', body: 'Orders ship in two business days.' },
  { title: 'Warranty', body: 'Hardware carries a one year warranty.' },
];

describe('chat sessions over HTTP', function () {
  this.timeout(20_000);
  let t: TestServer;
  let provider: ScriptedProvider;

  before(async () => {
    provider = new ScriptedProvider();
    t = await TestServer.start({ providers: directory(provider, ['openai', 'anthropic', 'local']) });
    for (const d of DOCS) expect((await t.request('POST', '/api/insert/docs', d)).status).to.equal(201);
  });
  after(() => t.stop());
  beforeEach(() => {
    provider.failWith = undefined;
  });

  async function newSession(body: Record<string, unknown> = {}): Promise<string> {
    const r = await t.request('POST', '/api/chat', {
      collections: [{ collection_name: 'docs', fields: [] }],
      llm_provider: 'openai',
      ...body,
    });
    expect(r.status, r.text).to.equal(200);
    return r.body.chat_id;
  }

  async function send(chatId: string, message: string, extra: Record<string, unknown> = {}) {
    const r = await t.request('POST', `/api/chat/${encodeURIComponent(chatId)}/messages`, { message, ...extra });
    expect(r.status, r.text).to.equal(200);
    return r.body;
  }

  const messages = async (chatId: string, query = '') =>
    (await t.request('GET', `/api/chat/${chatId}/messages${query}`)).body;

  describe('sessions', () => {
    it('creates a session answering a full ChatResponse with no message yet', async () => {
      const r = await t.request('POST', '/api/chat', {
        collections: [],
        llm_provider: 'openai',
        llm_model: 'gpt-x',
        system_prompt: 'Be brief.',
      });
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal({
        chat_id: r.body.chat_id,
        message_id: '',
        responses: [],
        context_snippets: [],
        execution_time_ms: 0,
      });
      expect(r.body.chat_id).to.be.a('string').and.not.equal('');
    });

    it('refuses an unknown provider with the classified 400 body', async () => {
      const r = await t.request('POST', '/api/chat', { collections: [], llm_provider: 'perplexity' });
      expect(r.status).to.equal(400);
      expect(r.body).to.include({
        error_kind: 'provider_not_configured',
        provider: 'perplexity',
        provider_status: null,
      });
      expect(r.body.error).to.be.a('string');
    });

    it('refuses bad bodies with 400', async () => {
      for (const body of [
        [1],
        { collections: [] },
        { llm_provider: 'openai', collections: 'docs' },
        { llm_provider: 'openai', nope: 1 },
        { llm_provider: 'openai', collections: [{ collection_name: 'docs', fields: [{ field_name: '__proto__' }] }] },
      ]) {
        const r = await t.request('POST', '/api/chat', body);
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(r.body.error).to.be.a('string');
      }
    });

    it('refuses prototype member names anywhere in a session or path with 4xx, never 500', async () => {
      const id = await newSession();
      const bodies = [
        JSON.parse('{"llm_provider":"openai","collections":[],"memory":{"__proto__":{"x":1}}}'),
        JSON.parse('{"llm_provider":"openai","collections":[],"tool_config":{"constructor":{"a":1}}}'),
        JSON.parse(
          '{"llm_provider":"openai","collections":[{"collection_name":"docs","fields":[],"search_options":{"__proto__":1}}]}',
        ),
      ];
      for (const body of bodies)
        expect((await t.request('POST', '/api/chat', body)).status, JSON.stringify(body)).to.equal(400);
      for (const path of [
        '/api/chat/__proto__',
        `/api/chat/${id}/messages/__proto__`,
        '/api/chat/constructor/messages',
      ]) {
        const r = await t.request('GET', path);
        expect(r.status, path).to.be.within(400, 404);
      }
    });

    it('gets a session with its message count, and 404 for an unknown one', async () => {
      const id = await newSession({ title: '2026-01-01T00:00:00Z', max_context_messages: 7 });
      const r = await t.request('GET', `/api/chat/${id}`);
      expect(r.status).to.equal(200);
      expect(r.body.message_count).to.equal(0);
      expect(r.body.session).to.include({
        chat_id: id,
        llm_provider: 'openai',
        llm_model: '',
        title: '2026-01-01T00:00:00Z',
        max_context_messages: 7,
      });
      expect(r.body.session.collections).to.deep.equal([{ collection_name: 'docs', fields: [] }]);
      const missing = await t.request('GET', '/api/chat/no-such-chat');
      expect(missing.status).to.equal(404);
      expect(missing.body.error).to.match(/no-such-chat/);
    });

    it('updates a session and clears an optional member with null', async () => {
      const id = await newSession({ system_prompt: 'old' });
      const r = await t.request('PUT', `/api/chat/${id}`, {
        title: 'Support',
        system_prompt: null,
        max_context_messages: 3,
      });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.session).to.include({ title: 'Support', max_context_messages: 3 });
      expect(r.body.session).to.not.have.property('system_prompt');
      expect((await t.request('PUT', `/api/chat/${id}`, { llm_provider: 'anthropic' })).status).to.equal(400);
      expect((await t.request('PUT', '/api/chat/missing', { title: 'x' })).status).to.equal(404);
    });

    it('lists sessions with total, returned, limit, skip and sort', async () => {
      const all = await t.request('GET', '/api/chat');
      expect(all.status).to.equal(200);
      expect(all.body.total).to.be.greaterThan(2);
      expect(all.body.returned).to.equal(all.body.sessions.length);
      const item = all.body.sessions[0];
      for (const k of [
        'chat_id',
        'created_at',
        'updated_at',
        'llm_provider',
        'llm_model',
        'collections',
        'message_count',
      ])
        expect(item).to.have.property(k);
      const asc = (await t.request('GET', '/api/chat?sort=asc&limit=2&skip=1')).body;
      expect(asc).to.include({ total: all.body.total, returned: 2, limit: 2, skip: 1 });
      const ascAll = (await t.request('GET', '/api/chat?sort=asc')).body.sessions.map((s: any) => s.chat_id);
      expect(asc.sessions.map((s: any) => s.chat_id)).to.deep.equal(ascAll.slice(1, 3));
      expect(ascAll).to.deep.equal([...all.body.sessions.map((s: any) => s.chat_id)].reverse());
      expect((await t.request('GET', '/api/chat?sort=up')).status).to.equal(400);
      expect((await t.request('GET', '/api/chat?limit=-1')).status).to.equal(400);
    });

    it('deletes a session and its messages', async () => {
      const id = await newSession();
      await send(id, 'refund');
      const r = await t.request('DELETE', `/api/chat/${id}`);
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ status: 'deleted', chat_id: id, messages_deleted: 2 });
      expect((await t.request('GET', `/api/chat/${id}`)).status).to.equal(404);
      expect((await t.request('DELETE', `/api/chat/${id}`)).status).to.equal(404);
      const left = await t.request('POST', '/api/find/chat_messages_default', {
        filter: { type: 'Condition', content: { field: 'chat_id', operator: 'Eq', value: id } },
      });
      expect(left.body).to.deep.equal([]);
    });

    it('stores sessions and messages in visible internal collections', async () => {
      const all = (await t.request('GET', '/api/collections')).body.collections;
      expect(all).to.include.members(['chat_configurations_default', 'chat_messages_default']);
      const visible = (await t.request('GET', '/api/collections?exclude_internal=true')).body.collections;
      expect(visible).to.not.include('chat_configurations_default');
      // A session's messages are found through a query index, not a scan.
      const indexes = (await t.request('GET', '/api/indexes/query/chat_messages_default')).body;
      expect(JSON.stringify(indexes)).to.include('chat_id');
      const plan = (
        await t.request('POST', '/api/query/chat_messages_default/explain', {
          filter: { type: 'Condition', content: { field: 'chat_id', operator: 'Eq', value: 'x' } },
        })
      ).body;
      expect(plan.plan.type).to.equal('index_scan');
    });
  });

  describe('messages', () => {
    it('answers with retrieval: responses, context snippets (bare records), time and token usage', async () => {
      const id = await newSession({ system_prompt: 'Answer from the docs.' });
      const r = await send(id, 'What is the refund policy?');
      expect(r.chat_id).to.equal(id);
      expect(r.message_id).to.be.a('string').and.not.equal('');
      expect(r.responses).to.deep.equal(['reply: What is the refund policy?']);
      expect(r.execution_time_ms).to.be.a('number');
      expect(Number.isInteger(r.execution_time_ms)).to.equal(true);
      expect(r.token_usage.total_tokens).to.equal(r.token_usage.prompt_tokens + r.token_usage.completion_tokens);
      const top = r.context_snippets[0];
      expect(top.collection).to.equal('docs');
      expect(top.record).to.include({ title: 'Refund policy' });
      expect(top.record.id).to.be.a('string');
      expect(top.score).to.be.a('number');
      expect(top.matched_fields).to.include('title');
      const system = provider.lastSystem();
      expect(system).to.match(/^Answer from the docs\.\n\nContext:\n\[docs\] \{.*Refund policy/);
    });

    it('replays the history to the provider on the next message', async () => {
      const id = await newSession();
      await send(id, 'first question');
      await send(id, 'second question');
      const last = provider.requests.at(-1)!;
      expect(last.messages.slice(1).map((m) => `${m.role}:${m.content}`)).to.deep.equal([
        'user:first question',
        'assistant:reply: first question',
        'user:second question',
      ]);
    });

    it('searches only the configured fields, with their weights', async () => {
      const id = await newSession({
        collections: [{ collection_name: 'docs', fields: [{ field_name: 'body', search_options: { weight: 2 } }] }],
      });
      const r = await send(id, 'Shipping');
      // "Shipping" is only a title; the body of that record says "ship", which stemming matches.
      expect(r.context_snippets.every((s: any) => s.matched_fields.every((f: string) => f === 'body'))).to.equal(true);
    });

    it('uses a per-message model override', async () => {
      const id = await newSession({ llm_model: 'base-model' });
      await send(id, 'hi', { llm_model: 'override-model' });
      expect(provider.requests.at(-1)!.model).to.equal('override-model');
      await send(id, 'again');
      expect(provider.requests.at(-1)!.model).to.equal('base-model');
    });

    it('lists message records typed, with limit, skip and sort', async () => {
      const id = await newSession();
      await send(id, 'one');
      await send(id, 'two');
      const page = await messages(id);
      expect(page).to.include({ total: 4, skip: 0, limit: null, returned: 4 });
      const [user, reply] = page.messages;
      expect(user.role).to.deep.equal({ type: 'String', value: 'user' });
      expect(user.content).to.deep.equal({ type: 'String', value: 'one' });
      expect(user.created_at.type).to.equal('DateTime');
      expect(user.forgotten).to.deep.equal({ type: 'Boolean', value: false });
      expect(user.id).to.be.a('string');
      expect(bare(reply)).to.include({
        role: 'assistant',
        chat_id: id,
        llm_provider: 'openai',
        llm_model: 'scripted-1',
      });
      expect(reply.context_snippets.type).to.equal('Array');
      expect(reply.token_usage.type).to.equal('Object');
      const desc = await messages(id, '?sort=desc&limit=1&skip=1');
      expect(desc).to.include({ total: 4, skip: 1, limit: 1, returned: 1 });
      expect(bare(desc.messages[0]).content).to.equal('two');
      expect((await t.request('GET', '/api/chat/missing/messages')).status).to.equal(404);
    });

    it('renders message records bare when use_typed_values is off', async () => {
      const id = await newSession();
      await send(id, 'plain');
      expect((await t.request('PUT', '/api/config', { use_typed_values: false })).status).to.equal(200);
      try {
        const m = (await messages(id)).messages[0];
        expect(m).to.include({ role: 'user', content: 'plain', forgotten: false });
        expect(m.created_at).to.be.a('string');
        const one = (await t.request('GET', `/api/chat/${id}/messages/${m.id}`)).body;
        expect(one).to.include({ id: m.id, content: 'plain' });
      } finally {
        await t.request('PUT', '/api/config', { use_typed_values: true });
      }
    });

    it('gets, edits and deletes one message, and 404s for a message of another session', async () => {
      const id = await newSession();
      const other = await newSession();
      const { message_id } = await send(id, 'to edit');
      const got = await t.request('GET', `/api/chat/${id}/messages/${message_id}`);
      expect(got.status).to.equal(200);
      expect(bare(got.body).content).to.equal('reply: to edit');
      const edited = await t.request('PUT', `/api/chat/${id}/messages/${message_id}`, { content: 'edited' });
      expect(edited.status).to.equal(200);
      expect(bare(edited.body).content).to.equal('edited');
      expect((await t.request('PUT', `/api/chat/${id}/messages/${message_id}`, { content: 3 })).status).to.equal(400);
      expect((await t.request('GET', `/api/chat/${other}/messages/${message_id}`)).status).to.equal(404);
      const del = await t.request('DELETE', `/api/chat/${id}/messages/${message_id}`);
      expect(del.status).to.equal(200);
      expect(del.body).to.include({ status: 'deleted', message_id });
      expect((await t.request('GET', `/api/chat/${id}/messages/${message_id}`)).status).to.equal(404);
      expect((await messages(id)).total).to.equal(1);
    });

    it('leaves forgotten messages out of the prompt', async () => {
      const id = await newSession();
      await send(id, 'secret question');
      const first = (await messages(id)).messages[0];
      const r = await t.request('PATCH', `/api/chat/${id}/messages/${first.id}/forgotten`, { forgotten: true });
      expect(r.status).to.equal(200);
      expect(bare(r.body).forgotten).to.equal(true);
      await send(id, 'next');
      expect(provider.requests.at(-1)!.messages.map((m) => m.content)).to.not.include('secret question');
      expect(
        (await t.request('PATCH', `/api/chat/${id}/messages/${first.id}/forgotten`, { forgotten: 'yes' })).status,
      ).to.equal(400);
      expect((await t.request('PATCH', `/api/chat/${id}/messages/${first.id}/forgotten`, {})).status).to.equal(400);
    });

    it('regenerates an assistant message in place and refuses a user message', async () => {
      const id = await newSession();
      const { message_id } = await send(id, 'regenerate me');
      await send(id, 'later');
      const count = provider.requests.length;
      const r = await t.request('POST', `/api/chat/${id}/messages/${message_id}/regenerate`);
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ chat_id: id, message_id });
      expect(r.body.responses).to.deep.equal(['reply: regenerate me']);
      // The history before the question, then the question: nothing said after it.
      expect(provider.requests[count]!.messages.slice(1).map((m) => m.content)).to.deep.equal(['regenerate me']);
      expect((await messages(id)).total).to.equal(4);
      const user = (await messages(id)).messages[0];
      expect((await t.request('POST', `/api/chat/${id}/messages/${user.id}/regenerate`)).status).to.equal(400);
      expect((await t.request('POST', `/api/chat/${id}/messages/nope/regenerate`)).status).to.equal(404);
    });

    it('refuses a bad message body with 400 and an unknown session with 404', async () => {
      const id = await newSession();
      expect((await t.request('POST', `/api/chat/${id}/messages`, {})).status).to.equal(400);
      expect((await t.request('POST', `/api/chat/${id}/messages`, { message: 5 })).status).to.equal(400);
      expect((await t.request('POST', `/api/chat/${id}/messages`, { message: 'x', surprise: true })).status).to.equal(
        400,
      );
      expect((await t.request('POST', '/api/chat/missing/messages', { message: 'x' })).status).to.equal(404);
    });

    it('passes a classified provider failure through and stores nothing', async () => {
      const id = await newSession();
      provider.failWith = new ProviderFailed('openai rate limit reached', 'provider_rate_limited', 'openai', 429, 7);
      const r = await t.request('POST', `/api/chat/${id}/messages`, { message: 'hello' });
      expect(r.status).to.equal(429);
      expect(r.headers.get('retry-after')).to.equal('7');
      expect(r.body).to.include({
        error_kind: 'provider_rate_limited',
        provider: 'openai',
        provider_status: 429,
        retry_after_secs: 7,
      });
      expect((await messages(id)).total).to.equal(0);
    });
  });

  describe('compaction', () => {
    it('folds older messages into a summary, keeps keep_recent, and is then already compact', async () => {
      const id = await newSession();
      for (const q of ['a', 'b', 'c']) await send(id, q);
      const r = await t.request('POST', `/api/chat/${id}/compact`, { keep_recent: 2 });
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ folded: 4, kept_recent: 2, already_compact: false });
      expect(r.body.summary_chars).to.be.greaterThan(0);
      const summary = (await t.request('GET', `/api/chat/${id}/messages/${r.body.summary_message_id}`)).body;
      expect(bare(summary)).to.include({ role: 'system', summary: true, forgotten: false });
      expect(bare(summary).content.length).to.equal(r.body.summary_chars);
      const listed = (await messages(id)).messages.map(bare);
      expect(listed.filter((m: any) => m.forgotten).map((m: any) => m.content)).to.deep.equal([
        'a',
        'reply: a',
        'b',
        'reply: b',
      ]);
      const again = await t.request('POST', `/api/chat/${id}/compact`, { keep_recent: 2 });
      expect(again.body).to.deep.equal({
        folded: 0,
        kept_recent: 2,
        summary_chars: 0,
        summary_message_id: null,
        already_compact: true,
      });
      await send(id, 'after compaction');
      expect(provider.lastSystem()).to.include('Summary of the earlier conversation:');
    });

    it("defaults keep_recent to the session's max_context_messages, else 50, and folds all with 0", async () => {
      const id = await newSession({ max_context_messages: 2 });
      for (const q of ['a', 'b']) await send(id, q);
      const r = await t.request('POST', `/api/chat/${id}/compact`);
      expect(r.body).to.include({ folded: 2, kept_recent: 2 });
      const wide = await newSession();
      await send(wide, 'x');
      expect((await t.request('POST', `/api/chat/${wide}/compact`, {})).body).to.include({
        already_compact: true,
        kept_recent: 2,
      });
      const all = await t.request('POST', `/api/chat/${wide}/compact`, { keep_recent: 0 });
      expect(all.body).to.include({ folded: 2, kept_recent: 0, already_compact: false });
      expect((await t.request('POST', `/api/chat/${wide}/compact`, { keep_recent: -1 })).status).to.equal(400);
      expect((await t.request('POST', '/api/chat/missing/compact', {})).status).to.equal(404);
    });
  });

  describe('branching and merging', () => {
    it("branches with the parent's messages up to branch_point_idx and the parent's settings", async () => {
      const parent = await newSession({ system_prompt: 'parent prompt' });
      for (const q of ['one', 'two']) await send(parent, q);
      const r = await t.request('POST', '/api/chat/branch', {
        parent_id: parent,
        branch_point_idx: 1,
        collections: [],
      });
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ message_id: '' });
      const child = r.body.chat_id;
      expect(child).to.not.equal(parent);
      const copied = (await messages(child)).messages.map(bare);
      expect(copied.map((m: any) => m.content)).to.deep.equal(['one', 'reply: one']);
      expect(copied[0].chat_id).to.equal(child);
      const session = (await t.request('GET', `/api/chat/${child}`)).body.session;
      expect(session).to.include({
        parent_id: parent,
        branch_point_idx: 1,
        system_prompt: 'parent prompt',
        llm_provider: 'openai',
      });
      expect(session.collections).to.deep.equal([]);
      expect((await messages(parent)).total).to.equal(4);
      // POST /api/chat with a parent_id branches too.
      const viaCreate = await t.request('POST', '/api/chat', {
        collections: [],
        llm_provider: 'openai',
        parent_id: parent,
        branch_point_idx: 0,
      });
      expect((await messages(viaCreate.body.chat_id)).total).to.equal(1);
      expect((await t.request('POST', '/api/chat/branch', { parent_id: parent, branch_point_idx: 9 })).status).to.equal(
        400,
      );
      expect((await t.request('POST', '/api/chat/branch', { parent_id: 'missing' })).status).to.equal(404);
      expect((await t.request('POST', '/api/chat/branch', { branch_point_idx: 0 })).status).to.equal(400);
    });

    async function twoSessions(): Promise<[string, string]> {
      const a = await newSession(),
        b = await newSession();
      await send(a, 'A1');
      await send(b, 'B1');
      await send(a, 'A2');
      return [a, b];
    }

    it('merges into a target with each client strategy', async () => {
      const expected: Record<string, string[]> = {
        Chronological: ['A1', 'reply: A1', 'B1', 'reply: B1', 'A2', 'reply: A2'],
        Interleaved: ['A1', 'reply: A1', 'B1', 'reply: B1', 'A2', 'reply: A2'],
        LatestOnly: ['B1', 'reply: B1', 'A2', 'reply: A2'],
      };
      for (const [strategy, contents] of Object.entries(expected)) {
        const [a, b] = await twoSessions();
        const target = await newSession();
        const r = await t.request('POST', '/api/chat/merge', {
          source_chat_ids: [a, b],
          target_chat_id: target,
          merge_strategy: strategy,
        });
        expect(r.status, r.text).to.equal(200);
        expect(r.body.message_count).to.equal(contents.length);
        expect(r.body.session.chat_id).to.equal(target);
        expect(
          (await messages(target)).messages.map((m: any) => bare(m).content),
          strategy,
        ).to.deep.equal(contents);
      }
      const [a, b] = await twoSessions();
      const target = await newSession();
      const r = await t.request('POST', '/api/chat/merge', {
        source_chat_ids: [a, b],
        target_chat_id: target,
        merge_strategy: 'Summarized',
      });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.message_count).to.equal(2);
      const summaries = (await messages(target)).messages.map(bare);
      expect(summaries.every((m: any) => m.summary === true && m.role === 'system')).to.equal(true);
    });

    it("merges with the contract's spelling into a new session", async () => {
      const [a, b] = await twoSessions();
      const r = await t.request('POST', '/api/chat/merge', {
        session_ids: [a, b],
        strategy: 'interleaved',
        llm_provider: 'anthropic',
        llm_model: 'm',
      });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.session.chat_id).to.not.be.oneOf([a, b]);
      expect(r.body.session).to.include({ llm_provider: 'anthropic', llm_model: 'm' });
      expect(r.body.session.collections).to.deep.equal([{ collection_name: 'docs', fields: [] }]);
      expect(r.body.message_count).to.equal(6);
    });

    it('refuses bad merges', async () => {
      const [a] = await twoSessions();
      expect(
        (await t.request('POST', '/api/chat/merge', { source_chat_ids: [a], merge_strategy: 'Random' })).status,
      ).to.equal(400);
      expect((await t.request('POST', '/api/chat/merge', { source_chat_ids: [] })).status).to.equal(400);
      expect((await t.request('POST', '/api/chat/merge', { source_chat_ids: ['missing'] })).status).to.equal(404);
      expect((await t.request('POST', '/api/chat/merge', { source_chat_ids: [a], target_chat_id: a })).status).to.equal(
        400,
      );
      expect(
        (await t.request('POST', '/api/chat/merge', { source_chat_ids: [a], llm_provider: 'perplexity' })).body
          .error_kind,
      ).to.equal('provider_not_configured');
    });
  });

  describe('tool results', () => {
    it('accepts a valid result or keep-alive and refuses a bad one', async () => {
      const id = await newSession();
      const r = await t.request('POST', `/api/chat/${id}/tool-result`, {
        call_id: 'c1',
        success: true,
        result: { rows: 2 },
      });
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ status: 'accepted', call_id: 'c1', delivered: false });
      expect(
        (await t.request('POST', `/api/chat/${id}/tool-result`, { call_id: 'c1', keepalive: true })).status,
      ).to.equal(200);
      expect((await t.request('POST', `/api/chat/${id}/tool-result`, { success: true })).status).to.equal(400);
      expect(
        (await t.request('POST', '/api/chat/missing/tool-result', { call_id: 'c', success: false, error: 'x' })).status,
      ).to.equal(404);
    });
  });

  describe('vector retrieval with the offline embedder', () => {
    it('finds records by their embedding', async () => {
      const texts = ['The cat sat on the warm windowsill', 'Quarterly revenue grew by eight percent'];
      const embedded = (await t.request('POST', '/api/embed', { texts })).body.embeddings;
      for (let i = 0; i < texts.length; i++) {
        expect(
          (
            await t.request('POST', '/api/insert/notes', {
              text: texts[i],
              embedding: { type: 'Vector', value: embedded[i] },
            })
          ).status,
        ).to.equal(201);
      }
      const id = await newSession({
        collections: [
          { collection_name: 'notes', fields: [{ field_name: 'embedding', search_options: { type: 'vector' } }] },
        ],
      });
      const r = await send(id, 'where did the cat sit');
      expect(r.context_snippets[0].record.text).to.equal(texts[0]);
      expect(r.context_snippets[0].record).to.not.have.property('embedding');
      expect(provider.lastSystem()).to.not.match(/embedding/);
    });
  });

  describe('permissions', () => {
    it('needs read access to the collections a session searches', async () => {
      const token = await t.userToken({
        name: 'chatter',
        collection_permissions: {
          chat_configurations_default: { read: true, write: true },
          chat_messages_default: { read: true, write: true },
          open: { read: true, write: false },
        },
      });
      const denied = await t.request(
        'POST',
        '/api/chat',
        { collections: [{ collection_name: 'docs', fields: [] }], llm_provider: 'openai' },
        { token },
      );
      expect(denied.status).to.equal(403);
      const ok = await t.request(
        'POST',
        '/api/chat',
        { collections: [{ collection_name: 'open', fields: [] }], llm_provider: 'openai' },
        { token },
      );
      expect(ok.status, ok.text).to.equal(200);
      const adminMade = await newSession();
      expect((await t.request('POST', `/api/chat/${adminMade}/messages`, { message: 'x' }, { token })).status).to.equal(
        403,
      );
      const outsider = await t.userToken({
        name: 'outsider',
        collection_permissions: { open: { read: true, write: true } },
      });
      expect((await t.request('GET', '/api/chat', undefined, { token: outsider })).status).to.equal(403);
    });
  });

  describe('durability', () => {
    it('keeps sessions and messages across a restart', async () => {
      const id = await newSession();
      await send(id, 'remember me');
      const dataDir = t.dataDir;
      await t.stop({ keepData: true });
      t = await TestServer.start({ dataDir, providers: directory(provider, ['openai', 'anthropic', 'local']) });
      expect((await t.request('GET', `/api/chat/${id}`)).body.message_count).to.equal(2);
      expect((await messages(id)).messages.map((m: any) => bare(m).content)).to.deep.equal([
        'remember me',
        'reply: remember me',
      ]);
    });
  });
});
