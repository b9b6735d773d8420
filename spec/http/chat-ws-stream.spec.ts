/**
 * WebSocket chat through a real server (protocol.md §3.4, §3.5): ChatSend's
 * ChatStreamChunk frames and ChatStreamEnd (no Success: ChatSend has no
 * messageId), ChatStreamError for an unknown chat and for a provider
 * failure, CancelChat aborting the upstream request with nothing stored,
 * and a client tool registered with RegisterClientTools, called with
 * ClientToolCall and answered with ClientToolResult.
 */
import { expect } from 'chai';
import WebSocket from 'ws';
import { TestServer } from '../helpers/test-server.js';
import { startFakeOpenAi } from '../helpers/fake-openai.js';
import type { FakeVendor } from '../helpers/fake-vendor.js';
import { until } from '../helpers/chat-sse.js';

class ChatSocket {
  readonly frames: any[] = [];
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      this.frames.push(JSON.parse(data.toString()));
    });
  }

  static async open(t: TestServer): Promise<ChatSocket> {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/api/ws`, {
      headers: { authorization: `Bearer ${await t.adminToken()}` },
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    return new ChatSocket(ws);
  }

  send(frame: unknown): void {
    this.ws.send(JSON.stringify(frame));
  }
  of(type: string): any[] {
    return this.frames.filter((f) => f.type === type);
  }
  close(): void {
    this.ws.close();
  }
}

describe('WebSocket chat streaming (ChatSend, CancelChat, client tools)', function () {
  this.timeout(20_000);
  let t: TestServer;
  let openai: FakeVendor;
  let ws: ChatSocket;
  beforeEach(async () => {
    t = await TestServer.start();
    openai = await startFakeOpenAi();
    ws = await ChatSocket.open(t);
  });
  afterEach(async () => {
    ws.close();
    await t.stop();
    await openai.close();
  });

  async function session(body: Record<string, unknown> = {}): Promise<string> {
    const r = await t.request('POST', '/api/chat', { collections: [], llm_provider: 'local', ...body });
    expect(r.status, r.text).to.equal(200);
    return r.body.chat_id;
  }
  const total = async (id: string) => (await t.request('GET', `/api/chat/${id}/messages`)).body.total;

  it('streams ChatStreamChunk frames, then ChatStreamEnd with the stored message id', async () => {
    const id = await session();
    ws.send({ type: 'ChatSend', payload: { chat_id: id, message: 'hello there' } });
    await until(() => ws.of('ChatStreamEnd').length === 1);
    const chunks = ws.of('ChatStreamChunk');
    expect(chunks.every((c) => c.payload.chat_id === id)).to.equal(true);
    expect(chunks.map((c) => c.payload.content).join('')).to.equal('Question: hello there\nNo context was found.');
    const end = ws.of('ChatStreamEnd')[0].payload;
    expect(end.chat_id).to.equal(id);
    expect(end.message_id).to.be.a('string').and.not.equal('');
    expect(end.execution_time_ms).to.be.a('number');
    expect(end.token_usage.total_tokens).to.be.greaterThan(0);
    expect(ws.of('Success')).to.deep.equal([]);
    expect(await total(id)).to.equal(2);
  });

  it('answers ChatStreamError for an unknown chat and with the classified fields for a provider failure', async () => {
    ws.send({ type: 'ChatSend', payload: { chat_id: 'missing', message: 'hi' } });
    await until(() => ws.of('ChatStreamError').length === 1);
    expect(ws.of('ChatStreamError')[0].payload).to.include({ chat_id: 'missing' });
    await t.request('PUT', '/api/config', { openai_api_key: 'sk-x', openai_api_url: openai.url });
    const id = await session({ llm_provider: 'openai' });
    openai.behaviour = 429;
    ws.send({ type: 'ChatSend', payload: { chat_id: id, message: 'hi' } });
    await until(() => ws.of('ChatStreamError').length === 2);
    expect(ws.of('ChatStreamError')[1].payload).to.include({
      chat_id: id,
      error_kind: 'provider_rate_limited',
      provider: 'openai',
      provider_status: 429,
      retry_after_secs: 7,
    });
    expect(await total(id)).to.equal(0);
  });

  it('CancelChat aborts the upstream request, ends the stream with ChatStreamError and stores nothing', async () => {
    await t.request('PUT', '/api/config', { openai_api_key: 'sk-x', openai_api_url: openai.url });
    const id = await session({ llm_provider: 'openai' });
    openai.reply = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    openai.tokenDelayMs = 20;
    ws.send({ type: 'ChatSend', payload: { chat_id: id, message: 'talk slowly' } });
    await until(() => ws.of('ChatStreamChunk').length >= 2);
    ws.send({ type: 'CancelChat', messageId: 'c1', payload: { chat_id: id } });
    await openai.waitAborted(1);
    await until(() => ws.of('Success').length === 1);
    expect(ws.of('Success')[0]).to.deep.equal({
      type: 'Success',
      payload: { data: { chat_id: id, cancelled: true } },
      messageId: 'c1',
    });
    expect(ws.of('ChatStreamError').map((f) => f.payload)).to.deep.equal([
      { chat_id: id, error: 'Chat stream cancelled', error_kind: 'cancelled' },
    ]);
    const chunks = ws.of('ChatStreamChunk').length;
    await new Promise((r) => setTimeout(r, 150));
    expect(ws.of('ChatStreamChunk').length).to.equal(chunks);
    expect(ws.of('ChatStreamEnd')).to.deep.equal([]);
    expect(await total(id)).to.equal(0);
    // Nothing in flight any more: a CancelChat without messageId gets no reply at all.
    ws.send({ type: 'CancelChat', payload: { chat_id: id } });
    await new Promise((r) => setTimeout(r, 100));
    expect(ws.frames.filter((f) => f.type === 'Success' || f.type === 'Error')).to.have.length(1);
  });

  it("ends a chat's stream with ChatStreamError when a newer ChatSend for the same chat replaces it", async () => {
    await t.request('PUT', '/api/config', { openai_api_key: 'sk-x', openai_api_url: openai.url });
    const id = await session({ llm_provider: 'openai' });
    openai.reply = Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ');
    openai.tokenDelayMs = 10;
    ws.send({ type: 'ChatSend', payload: { chat_id: id, message: 'first' } });
    await until(() => ws.of('ChatStreamChunk').length >= 2);
    // The delay stays: the fake reads it per token, so dropping it here let the first reply finish before the
    // second ChatSend replaced it, and nothing was left to abort (the spec then waited for an abort forever).
    ws.send({ type: 'ChatSend', payload: { chat_id: id, message: 'second' } });
    await until(() => ws.of('ChatStreamEnd').length === 1);
    expect(ws.of('ChatStreamError').map((f) => f.payload.error)).to.deep.equal([
      'Replaced by a newer ChatSend for this chat',
    ]);
    await openai.waitAborted(1);
    const stored = (await t.request('GET', `/api/chat/${id}/messages`)).body.messages.map(
      (m: any) => m.content?.value ?? m.content,
    );
    expect(stored[0]).to.equal('second');
    expect(stored).to.have.length(2);
  });

  it('calls a registered client tool with ClientToolCall and continues with the ClientToolResult', async () => {
    const id = await session({ tool_config: { tool_choice: { type: 'tool', name: 'lookup' } } });
    ws.send({
      type: 'RegisterClientTools',
      messageId: 'r1',
      payload: {
        chat_id: id,
        tools: [
          {
            name: 'lookup',
            description: 'Look up',
            parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
          },
        ],
      },
    });
    await until(() => ws.of('Success').length === 1);
    expect(ws.of('Success')[0]).to.deep.include({
      messageId: 'r1',
      payload: { data: { status: 'tools_registered', chat_id: id, tools: ['lookup'] } },
    });
    ws.send({ type: 'ChatSend', payload: { chat_id: id, message: 'kiwi' } });
    await until(() => ws.of('ClientToolCall').length === 1);
    const call = ws.of('ClientToolCall')[0].payload;
    expect(call).to.deep.include({ chat_id: id, tool_name: 'lookup', arguments: { q: 'kiwi' } });
    ws.send({
      type: 'ClientToolResult',
      payload: { chat_id: id, call_id: call.call_id, success: true, result: 'a green fruit' },
    });
    await until(() => ws.of('ChatStreamEnd').length === 1);
    expect(ws.of('Success')[1].payload.data).to.include({ delivered: true, call_id: call.call_id });
    const end = ws.of('ChatStreamEnd')[0].payload;
    expect(end.tool_call_history.tool_results[0]).to.include({
      tool_name: 'lookup',
      success: true,
      result: 'a green fruit',
    });
    expect(
      ws
        .of('ChatStreamChunk')
        .map((c) => c.payload.content)
        .join(''),
    ).to.equal('Tool results:\n- lookup: "a green fruit"');
  });
});
