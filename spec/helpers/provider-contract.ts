/**
 * The behaviour every network chat adapter owes, as mocha cases run against
 * its fake vendor: answers, streams, tool calls both ways, every error
 * class of the classifier's table, broken/truncated/stalled streams, and a
 * cancel that reaches the upstream request. Each adapter's spec calls
 * `providerContract` with how to start its fake and build the adapter.
 */
import { expect } from 'chai';
import { ProviderFailed } from '../../lib/errors.js';
import type { ChatProvider, CompletionChunk, CompletionRequest } from '../../lib/chat/index.js';
import type { Behaviour, FakeVendor } from './fake-vendor.js';

export interface ContractSubject {
  readonly name: string;
  startFake(): Promise<FakeVendor>;
  /** The adapter pointed at `url` with `timeoutMs`. */
  provider(url: string, timeoutMs: number): ChatProvider;
  /** Path of the chat endpoint as the fake records it. */
  readonly chatPath: string;
  /** A model to name in requests. */
  readonly model: string;
}

export const HELLO: CompletionRequest = {
  model: undefined,
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Say hello' },
  ],
  maxTokens: 50,
};

export async function collect(stream: AsyncIterable<CompletionChunk>): Promise<CompletionChunk[]> {
  const out: CompletionChunk[] = [];
  for await (const c of stream) out.push(c);
  return out;
}

export async function failureOf(p: Promise<unknown>): Promise<ProviderFailed> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(ProviderFailed);
    return err as ProviderFailed;
  }
  throw new Error('expected a ProviderFailed');
}

/** The classifier's table, as a fake can provoke it: behaviour -> kind, HTTP status, provider status. */
export const ERROR_CASES: ReadonlyArray<[Behaviour, string, number, number | null]> = [
  [401, 'provider_auth_failed', 502, 401],
  [403, 'provider_permission_denied', 502, 403],
  [402, 'provider_billing', 402, 402],
  ['insufficient_quota', 'provider_billing', 402, 429],
  [429, 'provider_rate_limited', 429, 429],
  [500, 'provider_unavailable', 502, 500],
  [503, 'provider_unavailable', 502, 503],
  ['garbage', 'provider_unavailable', 502, 200],
  [400, 'provider_request_error', 400, 400],
  [404, 'provider_request_error', 400, 404],
];

export function providerContract(s: ContractSubject): void {
  describe(`${s.name}: the ChatProvider contract against its fake vendor`, function () {
    this.timeout(15_000);
    let fake: FakeVendor;
    let provider: ChatProvider;
    beforeEach(async () => {
      fake = await s.startFake();
      provider = s.provider(fake.url, 2_000);
    });
    afterEach(async () => {
      await fake.close();
    });

    it('completes: content, model, usage', async () => {
      fake.reply = 'Hello there, friend';
      const c = await provider.complete({ ...HELLO, model: s.model });
      expect(c.content).to.equal('Hello there, friend');
      expect(c.model).to.equal(s.model);
      expect(c.usage.completion_tokens).to.be.greaterThan(0);
      expect(c.usage.total_tokens).to.equal(c.usage.prompt_tokens + c.usage.completion_tokens);
      expect(c.toolCalls).to.equal(undefined);
      expect(fake.requests.at(-1)!.path).to.equal(s.chatPath);
    });

    it('streams one token per chunk, then one done chunk with the whole answer and usage', async () => {
      fake.reply = 'one two three four';
      const chunks = await collect(provider.stream({ ...HELLO, model: s.model }));
      const tokens = chunks.filter((c) => c.kind === 'token').map((c) => (c as { text: string }).text);
      expect(tokens.join('')).to.equal('one two three four');
      expect(tokens.length).to.equal(4);
      const done = chunks.at(-1)!;
      expect(done.kind).to.equal('done');
      if (done.kind !== 'done') return;
      expect(done.completion.content).to.equal('one two three four');
      expect(done.completion.usage.completion_tokens).to.equal(4);
      expect(chunks.filter((c) => c.kind === 'done')).to.have.length(1);
    });

    it('asks for tools and reads the tool call back, whole and streamed', async () => {
      fake.toolCall = { name: 'lookup', arguments: { query: 'red shoes', limit: 3 } };
      const tools = [
        {
          name: 'lookup',
          description: 'find records',
          parameters: { type: 'object', properties: { query: { type: 'string' } } },
        },
      ];
      const c = await provider.complete({
        ...HELLO,
        model: s.model,
        tools,
        toolChoice: { type: 'tool', name: 'lookup' },
      });
      expect(c.toolCalls).to.have.length(1);
      expect(c.toolCalls![0]!.name).to.equal('lookup');
      expect(c.toolCalls![0]!.arguments).to.deep.equal({ query: 'red shoes', limit: 3 });
      const chunks = await collect(provider.stream({ ...HELLO, model: s.model, tools }));
      const done = chunks.at(-1)!;
      expect(done.kind).to.equal('done');
      if (done.kind === 'done')
        expect(done.completion.toolCalls?.[0]?.arguments).to.deep.equal({ query: 'red shoes', limit: 3 });
    });

    it("sends a tool result back in the vendor's form", async () => {
      await provider.complete({
        model: s.model,
        messages: [
          { role: 'user', content: 'find red shoes' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'call_9', name: 'lookup', arguments: { query: 'red shoes' } }],
          },
          { role: 'tool', content: '{"found":2}', toolCallId: 'call_9' },
        ],
      });
      expect(JSON.stringify(fake.requests.at(-1)!.body))
        .to.contain('call_9')
        .and.contain('{\\"found\\":2}');
    });

    for (const [behaviour, kind, status, providerStatus] of ERROR_CASES) {
      it(`classifies ${behaviour} as ${kind} (${status}), whole and streamed`, async () => {
        fake.behaviour = behaviour;
        for (const attempt of [
          provider.complete({ ...HELLO, model: s.model }),
          collect(provider.stream({ ...HELLO, model: s.model })),
        ]) {
          const e = await failureOf(attempt);
          expect(e.kind).to.equal(kind);
          expect(e.status).to.equal(status);
          expect(e.providerStatus).to.equal(providerStatus);
          expect(e.provider).to.equal(s.provider(fake.url, 1).id);
          if (behaviour === 429) expect(e.retryAfterSecs).to.equal(7);
          expect(e.message).to.not.match(/sk-|secret/);
        }
      });
    }

    it('classifies a refused connection and a timeout as provider_unreachable (502, no provider status)', async () => {
      const url = fake.url;
      await fake.close();
      const refused = await failureOf(s.provider(url, 2_000).complete({ ...HELLO, model: s.model }));
      expect([refused.kind, refused.status, refused.providerStatus]).to.deep.equal(['provider_unreachable', 502, null]);
      fake = await s.startFake();
      fake.behaviour = 'hang';
      const slow = await failureOf(s.provider(fake.url, 150).complete({ ...HELLO, model: s.model }));
      expect([slow.kind, slow.status, slow.providerStatus]).to.deep.equal(['provider_unreachable', 502, null]);
    });

    it(
      'fails a stream cut off mid-answer, or ended without its final event, as provider_unavailable after its ' +
        'first tokens',
      async () => {
        fake.reply = 'a b c d e f';
        for (const behaviour of ['broken_stream', 'truncated_stream'] as const) {
          fake.behaviour = behaviour;
          const seen: CompletionChunk[] = [];
          const e = await failureOf(
            (async () => {
              for await (const c of provider.stream({ ...HELLO, model: s.model })) seen.push(c);
            })(),
          );
          expect(e.kind, behaviour).to.equal('provider_unavailable');
          expect(
            seen.some((c) => c.kind === 'done'),
            behaviour,
          ).to.equal(false);
        }
      },
    );

    it('fails a stream that stalls past the timeout as provider_unreachable', async () => {
      fake.behaviour = 'stall_stream';
      const e = await failureOf(collect(s.provider(fake.url, 200).stream({ ...HELLO, model: s.model })));
      expect(e.kind).to.equal('provider_unreachable');
    });

    it('cancels the upstream request when the signal fires mid-stream, and ends without an error', async () => {
      fake.reply = Array.from({ length: 50 }, (_, i) => `w${i}`).join(' ');
      fake.tokenDelayMs = 30;
      const controller = new AbortController();
      const seen: CompletionChunk[] = [];
      for await (const c of provider.stream({ ...HELLO, model: s.model }, controller.signal)) {
        seen.push(c);
        if (seen.length === 2) controller.abort();
      }
      await fake.waitAborted(1);
      expect(fake.aborted).to.equal(1);
      expect(seen.length).to.be.lessThan(10);
    });
  });
}
