/**
 * POST /api/chat/{id}/messages/stream through a real server: tokens then the
 * done frame on the offline local provider, the exchange stored once; a
 * vendor failure as the classified error frame (nothing stored); a client
 * that goes away aborting the upstream request (nothing stored); a turn with
 * a server tool, with a client tool answered, and with one timing out;
 * max_iterations bounding a model that keeps calling tools.
 */
import { expect } from 'chai';
import { TestServer, bare } from '../helpers/test-server.js';
import type { FakeVendor } from '../helpers/fake-vendor.js';
import { postChatSse, startChatStreamServers, until } from '../helpers/chat-sse.js';

describe('chat message stream (POST /api/chat/{id}/messages/stream)', function () {
  this.timeout(20_000);
  let t: TestServer;
  let openai: FakeVendor;
  let token: string;
  beforeEach(async () => {
    ({ t, openai, token } = await startChatStreamServers());
  });
  afterEach(async () => {
    await t.stop();
    await openai.close();
  });

  const stream = (chatId: string, body: unknown) =>
    postChatSse(`${t.url}/api/chat/${chatId}/messages/stream`, token, body);

  async function session(body: Record<string, unknown> = {}): Promise<string> {
    const r = await t.request('POST', '/api/chat', { collections: [], llm_provider: 'local', ...body });
    expect(r.status, r.text).to.equal(200);
    return r.body.chat_id;
  }

  async function stored(chatId: string): Promise<any[]> {
    return (await t.request('GET', `/api/chat/${chatId}/messages`)).body.messages.map((m: any) => bare(m));
  }

  it('streams {token} frames, then {content, message_id, execution_time_ms, token_usage} once the exchange is stored', async () => {
    expect((await t.request('POST', '/api/insert/docs', { body: 'Parcels leave every Tuesday.' })).status).to.equal(
      201,
    );
    const id = await session({ collections: [{ collection_name: 'docs', fields: [] }] });
    const s = stream(id, { message: 'When do parcels leave?' });
    await s.ended;
    expect(s.status).to.equal(200);
    expect(s.headers['content-type']).to.match(/^text\/event-stream/);
    const done = s.data.at(-1);
    expect(done.content).to.include('Question: When do parcels leave?').and.include('Tuesday');
    expect(
      s.data
        .slice(0, -1)
        .map((d) => d.token)
        .join(''),
    ).to.equal(done.content);
    expect(done.message_id).to.be.a('string').and.not.equal('');
    expect(done).to.include({ chat_id: id });
    expect(done.execution_time_ms).to.be.a('number');
    expect(done.token_usage.total_tokens).to.be.greaterThan(0);
    expect(done).to.not.have.property('tool_call_history');
    const messages = await stored(id);
    expect(messages.map((m) => m.role)).to.deep.equal(['user', 'assistant']);
    expect(messages[1]).to.include({ id: done.message_id, content: done.content });
  });

  it('answers an unknown chat (404) or a bad body (400) before any stream opens', async () => {
    const missing = stream('no-such-chat', { message: 'hi' });
    await missing.ended;
    expect(missing.status).to.equal(404);
    const id = await session();
    for (const body of [
      {},
      { message: 'x', extra: 1 },
      { message: 'x', max_iterations: 0 },
      { message: 'x', client_tools: [{ name: '__proto__' }] },
      { message: 'x', tool_config: { enabled: 'yes' } },
    ]) {
      const bad = stream(id, body);
      await bad.ended;
      expect(bad.status, JSON.stringify(body)).to.equal(400);
    }
  });

  it('ends with the classified error frame when the provider fails, and stores nothing', async () => {
    await t.request('PUT', '/api/config', { openai_api_key: 'sk-x', openai_api_url: openai.url });
    const id = await session({ llm_provider: 'openai' });
    openai.behaviour = 429;
    const s = stream(id, { message: 'hi' });
    await s.ended;
    expect(s.status).to.equal(200);
    expect(s.data.at(-1)).to.include({
      error_kind: 'provider_rate_limited',
      provider: 'openai',
      provider_status: 429,
      retry_after_secs: 7,
    });
    expect(await stored(id)).to.deep.equal([]);
  });

  it('aborts the upstream request and stores nothing when the client disconnects mid-stream', async () => {
    await t.request('PUT', '/api/config', { openai_api_key: 'sk-x', openai_api_url: openai.url });
    const id = await session({ llm_provider: 'openai' });
    openai.reply = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    openai.tokenDelayMs = 20;
    const s = stream(id, { message: 'talk slowly' });
    await until(() => s.data.length >= 2);
    s.close();
    await openai.waitAborted(1);
    expect(openai.aborted).to.equal(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(await stored(id)).to.deep.equal([]);
  });

  it('runs a server tool the model calls, streams tool_call/tool_result, and records tool_call_history', async () => {
    for (const n of [1, 2, 3]) expect((await t.request('POST', '/api/insert/docs', { n })).status).to.equal(201);
    const id = await session({ tool_config: { enabled: true, tool_choice: { type: 'tool', name: 'count_records' } } });
    const s = stream(id, { message: 'docs' });
    await s.ended;
    const call = s.data.find((d) => d.event === 'tool_call');
    expect(call).to.deep.include({ tool: 'count_records', args: { collection: 'docs' } });
    const result = s.data.find((d) => d.event === 'tool_result');
    expect(result).to.deep.include({
      tool: 'count_records',
      call_id: call.call_id,
      success: true,
      result: { collection: 'docs', count: 3 },
    });
    const done = s.data.at(-1);
    expect(done.content).to.equal('Tool results:\n- count_records: {"collection":"docs","count":3}');
    expect(done.tool_call_history).to.deep.equal({
      iterations: 1,
      tool_calls: [{ id: call.call_id, name: 'count_records', arguments: { collection: 'docs' } }],
      tool_results: [
        {
          tool_call_id: call.call_id,
          tool_name: 'count_records',
          success: true,
          result: { collection: 'docs', count: 3 },
          error: null,
        },
      ],
    });
    const reply = (await stored(id))[1];
    expect(reply.tool_call_count).to.equal(1);
    expect(reply.tool_call_history.iterations).to.equal(1);
  });

  it('runs server tools in a whole (non-streamed) message too, and leaves out exclude_tools', async () => {
    expect((await t.request('POST', '/api/insert/docs', { n: 1 })).status).to.equal(201);
    const id = await session();
    const r = await t.request('POST', `/api/chat/${id}/messages`, {
      message: 'docs',
      tool_config: { enabled: true, tool_choice: { type: 'tool', name: 'count_records' } },
    });
    expect(r.status, r.text).to.equal(200);
    expect(r.body.responses[0]).to.equal('Tool results:\n- count_records: {"collection":"docs","count":1}');
    expect(r.body.tool_call_history.iterations).to.equal(1);
    const excluded = await t.request('POST', `/api/chat/${id}/messages`, {
      message: 'docs',
      exclude_tools: ['count_records'],
      tool_config: { enabled: true, tool_choice: { type: 'tool', name: 'count_records' } },
    });
    expect(excluded.body.tool_call_history.tool_calls[0].name).to.not.equal('count_records');
  });

  it("keeps write tools away unless allow_write_operations, and checks the caller's permissions", async () => {
    const id = await session({ tool_config: { enabled: true, tool_choice: { type: 'tool', name: 'insert_record' } } });
    const s = stream(id, { message: 'docs' });
    await s.ended;
    // insert_record is not offered, so the local model calls the first tool it is offered instead.
    expect(s.data.find((d) => d.event === 'tool_call').tool).to.not.equal('insert_record');
    expect((await t.request('POST', '/api/insert/secret', { x: 1 })).status).to.equal(201);
    const user = await t.userToken({
      name: 'chatter',
      collection_permissions: {
        chat_configurations_default: { read: true, write: true },
        chat_messages_default: { read: true, write: true },
      },
    });
    const own = await t.request(
      'POST',
      '/api/chat',
      {
        collections: [],
        llm_provider: 'local',
        tool_config: { enabled: true, tool_choice: { type: 'tool', name: 'count_records' } },
      },
      { token: user },
    );
    const denied = postChatSse(`${t.url}/api/chat/${own.body.chat_id}/messages/stream`, user, { message: 'secret' });
    await denied.ended;
    const result = denied.data.find((d) => d.event === 'tool_result');
    expect(result.success).to.equal(false);
    expect(result.error).to.match(/no access to collection 'secret'/);
  });

  it('sends a client tool call as a __client_tool_call frame and continues with the answer from POST tool-result', async () => {
    const id = await session();
    const tools = [
      {
        name: 'get_weather',
        description: 'Weather of a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ];
    const s = stream(id, {
      message: 'Paris',
      client_tools: tools,
      tool_config: { tool_choice: { type: 'tool', name: 'get_weather' } },
    });
    await until(() => s.data.some((d) => d.event === '__client_tool_call'));
    const call = s.data.find((d) => d.event === '__client_tool_call');
    expect(call).to.deep.include({
      chat_id: id,
      tool: 'get_weather',
      tool_name: 'get_weather',
      arguments: { city: 'Paris' },
      timeout_secs: 60,
    });
    const keep = await t.request('POST', `/api/chat/${id}/tool-result`, { call_id: call.call_id, keepalive: true });
    expect(keep.body.delivered).to.equal(true);
    const answered = await t.request('POST', `/api/chat/${id}/tool-result`, {
      call_id: call.call_id,
      success: true,
      result: { temp: 21 },
    });
    expect(answered.body).to.include({ delivered: true, call_id: call.call_id });
    await s.ended;
    const done = s.data.at(-1);
    expect(done.content).to.equal('Tool results:\n- get_weather: {"temp":21}');
    expect(done.tool_call_history.tool_results[0]).to.include({ tool_name: 'get_weather', success: true });
    const again = await t.request('POST', `/api/chat/${id}/tool-result`, { call_id: call.call_id, success: true });
    expect(again.body.delivered).to.equal(false);
  });

  it('asks the client to approve a server tool named in confirm_tools, and runs it only when approved', async () => {
    expect((await t.request('POST', '/api/insert/docs', { n: 1 })).status).to.equal(201);
    const id = await session({ tool_config: { enabled: true, tool_choice: { type: 'tool', name: 'count_records' } } });
    for (const approve of [true, false]) {
      const s = stream(id, { message: 'docs', confirm_tools: ['count_records'] });
      await until(() => s.data.some((d) => d.event === '__client_tool_call'));
      const ask = s.data.find((d) => d.event === '__client_tool_call');
      expect(ask).to.deep.include({ tool: 'count_records', arguments: { collection: 'docs' }, confirm: true });
      await t.request('POST', `/api/chat/${id}/tool-result`, {
        call_id: ask.call_id,
        success: approve,
        ...(approve ? {} : { error: 'no' }),
      });
      await s.ended;
      const result = s.data.find((d) => d.event === 'tool_result');
      if (approve) expect(result).to.deep.include({ success: true, result: { collection: 'docs', count: 1 } });
      else expect(result).to.include({ success: false, error: "The client did not approve 'count_records': no" });
    }
  });

  it('gives the model a timeout error when the client does not answer within client_tool_timeout_secs', async () => {
    expect((await t.request('PUT', '/api/config', { client_tool_timeout_secs: 1 })).status).to.equal(200);
    const id = await session();
    const s = stream(id, {
      message: 'Paris',
      client_tools: [{ name: 'get_weather' }],
      tool_config: { tool_choice: { type: 'required' } },
    });
    await s.ended;
    const call = s.data.find((d) => d.event === '__client_tool_call');
    expect(call.timeout_secs).to.equal(1);
    const result = s.data.find((d) => d.event === 'tool_result');
    expect(result).to.include({ success: false, error: 'The client did not answer within 1 s' });
    expect(s.data.at(-1).content).to.equal(
      'Tool results:\n- get_weather: {"error":"The client did not answer within 1 s"}',
    );
    expect(s.comments.length).to.be.greaterThan(0);
  });

  it('stops after max_iterations rounds of tool calls', async () => {
    await t.request('PUT', '/api/config', { openai_api_key: 'sk-x', openai_api_url: openai.url });
    const id = await session({ llm_provider: 'openai', tool_config: { enabled: true } });
    openai.toolCall = { name: 'list_collections', arguments: {} };
    const before = openai.requests.length;
    const s = stream(id, { message: 'loop', max_iterations: 2 });
    await s.ended;
    expect(s.data.filter((d) => d.event === 'tool_call')).to.have.length(2);
    expect(openai.requests.length - before).to.equal(3);
    const sent = openai.requests.at(-1)!.body;
    expect(sent.tool_choice).to.equal('none');
    expect(s.data.at(-1).tool_call_history.iterations).to.equal(2);
  });
});

describe('chat tools (GET /api/chat/tools, POST /api/chat/tools/execute)', function () {
  this.timeout(20_000);
  let t: TestServer;
  before(async () => {
    t = await TestServer.start();
  });
  after(async () => {
    await t.stop();
  });

  it('lists the server tools as a bare array of {name, description, parameters}', async () => {
    const r = await t.request('GET', '/api/chat/tools');
    expect(r.status).to.equal(200);
    expect(r.body.map((x: any) => x.name)).to.include.members([
      'list_collections',
      'count_records',
      'find_records',
      'find_by_id',
      'search_records',
      'insert_record',
    ]);
    for (const tool of r.body) expect(tool).to.have.keys('name', 'description', 'parameters');
  });

  it('runs read tools; write tools only for a chat whose tool_config allows writes', async () => {
    const ins = await t.request('POST', '/api/insert/notes', { title: 'alpha beta' });
    const id = ins.body.id;
    const exec = (body: unknown) => t.request('POST', '/api/chat/tools/execute', body);
    expect((await exec({ tool: 'find_by_id', params: { collection: 'notes', id } })).body).to.deep.equal({
      success: true,
      result: { id, title: 'alpha beta' },
    });
    expect((await exec({ tool: 'count_records', params: { collection: 'notes' } })).body.result.count).to.equal(1);
    expect((await exec({ tool: 'list_collections', params: {} })).body.result).to.include('notes');
    expect((await exec({ tool: 'nope', params: {} })).body).to.deep.equal({
      success: false,
      error: "Unknown tool 'nope'",
    });
    expect((await exec({ tool: 'find_by_id', params: { collection: 'notes' } })).body.success).to.equal(false);
    const refused = await exec({ tool: 'insert_record', params: { collection: 'notes', record: { title: 'x' } } });
    expect(refused.body.success).to.equal(false);
    expect(refused.body.error).to.match(/allow_write_operations/);
    const chat = await t.request('POST', '/api/chat', {
      collections: [],
      llm_provider: 'local',
      tool_config: { enabled: true, allow_write_operations: true },
    });
    const wrote = await exec({
      tool: 'insert_record',
      params: { collection: 'notes', record: { title: 'gamma' } },
      chat_id: chat.body.chat_id,
    });
    expect(wrote.body.success, wrote.text).to.equal(true);
    expect((await exec({ tool: 'count_records', params: { collection: 'notes' } })).body.result.count).to.equal(2);
  });

  it("respects the caller's collection permissions and refuses bad bodies with 400", async () => {
    await t.request('POST', '/api/insert/private', { x: 1 });
    const token = await t.userToken({
      name: 'reader',
      collection_permissions: { public: { read: true, write: false } },
    });
    const r = await t.request(
      'POST',
      '/api/chat/tools/execute',
      { tool: 'count_records', params: { collection: 'private' } },
      { token },
    );
    expect(r.status).to.equal(200);
    expect(r.body).to.deep.equal({ success: false, error: "This API key has no access to collection 'private'" });
    const listed = await t.request(
      'POST',
      '/api/chat/tools/execute',
      { tool: 'list_collections', params: {} },
      { token },
    );
    expect(listed.body.result).to.not.include('private');
    for (const body of [
      {},
      { tool: 'count_records', params: [] },
      { tool: 'x', extra: 1 },
      { tool: 'x', chat_id: 5 },
    ]) {
      expect((await t.request('POST', '/api/chat/tools/execute', body)).status, JSON.stringify(body)).to.equal(400);
    }
  });
});
