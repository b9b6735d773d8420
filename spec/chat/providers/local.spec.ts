/**
 * The offline `local` provider: its documented answer form, word tokens, streaming, max_tokens, tools, and determinism.
 */
import { expect } from 'chai';
import { contextBlock, LOCAL_MODEL, LocalProvider } from '../../../lib/chat/providers/local.js';
import { collect } from '../../helpers/provider-contract.js';

const local = new LocalProvider();

describe('local provider', () => {
  it('answers the last user message with the context snippets found in the system message', async () => {
    const system =
      `You help with ` +
      `products.\n\n${contextBlock(['Red shoes, size 42', 'Blue   hat\nwith feather'])}\n\nBe brief.`;
    const c = await local.complete({
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: 'Any shoes?' },
      ],
    });
    expect(c.content).to.equal('Question: Any shoes?\nContext:\n- Red shoes, size 42\n- Blue hat with feather');
    expect(c.model).to.equal(LOCAL_MODEL);
  });

  it('says when there is no context, and reads a "Relevant context:" block from an earlier user message', async () => {
    expect((await local.complete({ messages: [{ role: 'user', content: 'hello' }] })).content).to.equal(
      'Question: hello\nNo context was found.',
    );
    const c = await local.complete({
      messages: [
        { role: 'user', content: 'Relevant context:\n[1] alpha\n* beta\n\nignored' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'and?' },
      ],
    });
    expect(c.content).to.equal('Question: and?\nContext:\n- alpha\n- beta');
  });

  it('counts whitespace-separated words as tokens, and cuts the answer at max_tokens words', async () => {
    const req = {
      messages: [
        { role: 'system' as const, content: 'one two three' },
        { role: 'user' as const, content: 'four five' },
      ],
    };
    const c = await local.complete(req);
    expect(c.usage.prompt_tokens).to.equal(5);
    expect(c.usage.completion_tokens).to.equal(c.content.split(/\s+/).length);
    expect(c.usage.total_tokens).to.equal(c.usage.prompt_tokens + c.usage.completion_tokens);
    const cut = await local.complete({ ...req, maxTokens: 3 });
    expect(cut.content).to.equal('Question: four five');
    expect(cut.usage.completion_tokens).to.equal(3);
  });

  it('streams word by word and ends with the same completion; the same request always gets the same answer', async () => {
    const req = { messages: [{ role: 'user' as const, content: 'stream this please' }] };
    const chunks = await collect(local.stream(req));
    const tokens = chunks.filter((c) => c.kind === 'token').map((c) => (c as { text: string }).text);
    const done = chunks.at(-1)!;
    expect(done.kind).to.equal('done');
    if (done.kind !== 'done') return;
    expect(tokens.join('')).to.equal(done.completion.content);
    expect(tokens.length).to.equal(done.completion.usage.completion_tokens);
    expect(done.completion).to.deep.equal(await local.complete(req));
  });

  it('stops streaming when the signal fires', async () => {
    const controller = new AbortController();
    const seen = [];
    for await (const c of local.stream(
      { messages: [{ role: 'user', content: 'a b c d e f g h' }] },
      controller.signal,
    )) {
      seen.push(c);
      controller.abort();
    }
    expect(seen).to.have.length(1);
  });

  it('calls a tool deterministically and answers from tool results', async () => {
    const tools = [
      {
        name: 'search_products',
        description: 'search',
        parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      },
      { name: 'other', description: 'x', parameters: { type: 'object' } },
    ];
    const user = { role: 'user' as const, content: 'use search_products for red shoes' };
    const auto = await local.complete({ messages: [user], tools });
    expect(auto.toolCalls).to.deep.equal([
      { id: 'call_local_search_products', name: 'search_products', arguments: { text: user.content } },
    ]);
    expect(
      (await local.complete({ messages: [{ role: 'user', content: 'no tool named' }], tools })).toolCalls,
    ).to.equal(undefined);
    expect(
      (await local.complete({ messages: [{ role: 'user', content: 'x' }], tools, toolChoice: { type: 'required' } }))
        .toolCalls![0]!.name,
    ).to.equal('search_products');
    expect(
      (
        await local.complete({
          messages: [{ role: 'user', content: 'x' }],
          tools,
          toolChoice: { type: 'tool', name: 'other' },
        })
      ).toolCalls![0],
    ).to.deep.equal({ id: 'call_local_other', name: 'other', arguments: { query: 'x' } });
    expect((await local.complete({ messages: [user], tools, toolChoice: { type: 'none' } })).toolCalls).to.equal(
      undefined,
    );
    const answered = await local.complete({
      messages: [
        user,
        { role: 'assistant', content: '', toolCalls: auto.toolCalls },
        { role: 'tool', content: '2 found', toolCallId: 'call_local_search_products' },
      ],
      tools,
    });
    expect(answered.toolCalls).to.equal(undefined);
    expect(answered.content).to.equal('Tool results:\n- search_products: 2 found');
  });

  it('lists its one model and embeds offline', async () => {
    expect(await local.listModels()).to.deep.equal([LOCAL_MODEL]);
    const v = await local.embed(['hello world']);
    expect(v).to.have.length(1);
    expect(v[0]!.length).to.be.greaterThan(0);
  });
});
