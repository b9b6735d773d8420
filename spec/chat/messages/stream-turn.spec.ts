/**
 * A streamed turn in process (the seam the SSE and WebSocket chat streams
 * will serve): tokens as the provider sends them, then the ChatResponse once
 * the exchange is stored; an abort or a failure stores nothing.
 */
import { expect } from 'chai';
import { ChatService, embedderFor, type TurnEvent } from '../../../lib/chat/index.js';
import { Database, ManualClock } from '../../../lib/engine/index.js';
import { ProviderFailed } from '../../../lib/errors.js';
import { directory, ScriptedProvider } from '../../helpers/scripted-provider.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

describe('chat streamed turn', () => {
  let dir: string;
  let db: Database;
  let chat: ChatService;
  let provider: ScriptedProvider;
  let chatId: string;

  beforeEach(async () => {
    dir = tempDir();
    db = await Database.open({ dataDir: dir, clock: new ManualClock(), settings: { durability: 'none' } });
    provider = new ScriptedProvider();
    chat = new ChatService({
      providers: directory(provider),
      embedder: () => embedderFor(db.settings()),
      now: () => db.now(),
    });
    await db.session(undefined).insert('docs', { title: 'Refund policy', body: 'thirty days' });
    chatId = (
      await chat.chatSessions.create(db.session(undefined), {
        llm_provider: 'openai',
        collections: [{ collection_name: 'docs', fields: [] }],
      })
    ).chat_id;
  });
  afterEach(async () => {
    await db.close();
    removeDir(dir);
  });

  const request = (message: string) => ({ message, bypassRipple: false, forceSummarize: false });

  it("yields the reply token by token, then the stored exchange's response", async () => {
    const events: TurnEvent[] = [];
    for await (const e of chat.messages.sendStream(db.session(undefined), chatId, request('refund policy please')))
      events.push(e);
    const tokens = events.filter((e) => e.kind === 'token').map((e) => (e as { text: string }).text);
    expect(tokens.length).to.be.greaterThan(1);
    expect(tokens.join('')).to.equal('reply: refund policy please');
    const done = events.at(-1)!;
    expect(done.kind).to.equal('done');
    const response = (done as Extract<TurnEvent, { kind: 'done' }>).response;
    expect(response.responses).to.deep.equal(['reply: refund policy please']);
    expect(response.context_snippets[0]!.record).to.include({ title: 'Refund policy' });
    const stored = await chat.messages.list(db.session(undefined), chatId, {});
    expect(stored.total).to.equal(2);
    expect(stored.messages[1]!.id).to.equal(response.message_id);
  });

  it('stores nothing when the client cancels before the end', async () => {
    const abort = new AbortController();
    const run = async () => {
      for await (const e of chat.messages.sendStream(
        db.session(undefined),
        chatId,
        request('cancel me'),
        abort.signal,
      )) {
        if (e.kind === 'token') abort.abort();
      }
    };
    let failed: unknown;
    await run().catch((err) => {
      failed = err;
    });
    expect(failed).to.be.instanceOf(Error);
    expect((await chat.messages.list(db.session(undefined), chatId, {})).total).to.equal(0);
  });

  it('stores nothing when the provider fails', async () => {
    provider.failWith = new ProviderFailed('openai is unavailable (503)', 'provider_unavailable', 'openai', 503);
    const run = async () => {
      for await (const _ of chat.messages.sendStream(db.session(undefined), chatId, request('x'))) {
        /* drain */
      }
    };
    let failed: unknown;
    await run().catch((err) => {
      failed = err;
    });
    expect(failed).to.be.instanceOf(ProviderFailed);
    expect((await chat.messages.list(db.session(undefined), chatId, {})).total).to.equal(0);
  });
});
