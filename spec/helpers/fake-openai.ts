/**
 * A fake OpenAI (Chat Completions API) on 127.0.0.1 for tests, also serving
 * as the OpenAI-compatible server (Ollama, vLLM...) and, without `/models`,
 * as Perplexity (fake-perplexity.ts): `/models`, `/embeddings` (deterministic
 * vectors), `/chat/completions` whole or streamed (`stream: true`: one chunk
 * per word, a finish chunk, a usage chunk when `stream_options.include_usage`,
 * then `[DONE]`), tool calls when `toolCall` is set. Failures and stream
 * faults as fake-vendor.ts describes.
 */
import { startFakeVendor, type FakeVendor, type VendorCall } from './fake-vendor.js';

export type FakeProvider = FakeVendor;

export const FAKE_OPENAI_MODELS = ['fake-gpt-large', 'fake-gpt-small'];

export interface FakeOpenAiOptions {
  /** Path prefix of the API (`/v1` for OpenAI and compatible servers, '' for Perplexity). */
  readonly prefix?: string;
  /** False: no `/models` endpoint (404), as Perplexity. */
  readonly models?: boolean;
}

export async function startFakeOpenAi(opts: FakeOpenAiOptions = {}): Promise<FakeProvider> {
  const listsModels = opts.models ?? true;
  return startFakeVendor(
    opts.prefix ?? '/v1',
    (call) => handle(call, listsModels),
    (status, behaviour) =>
      behaviour === 'insufficient_quota'
        ? {
            error: {
              message: 'You exceeded your current quota, please check your plan and billing details.',
              type: 'insufficient_quota',
              code: 'insufficient_quota',
            },
          }
        : { error: { message: `fake failure ${status}`, type: 'fake_error' } },
  );
}

function handle(call: VendorCall, listsModels: boolean): void | Promise<void> {
  const { path, body } = call;
  if (call.req.method === 'GET' && path === '/models' && listsModels) {
    return call.json(200, {
      object: 'list',
      data: FAKE_OPENAI_MODELS.map((id) => ({ id, object: 'model', owned_by: 'fake' })),
    });
  }
  if (call.req.method === 'POST' && path === '/embeddings') {
    const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
    const data = inputs.map((text, index) => ({
      index,
      embedding: Array.from({ length: 8 }, (_, i) => ((text.length + i) % 5) / 5),
    }));
    return call.json(200, { object: 'list', model: body.model, data });
  }
  if (call.req.method === 'POST' && path === '/chat/completions') return completions(call);
  call.json(404, { error: { message: `no route ${path}` } });
}

function completions(call: VendorCall): void | Promise<void> {
  const { body, fake } = call;
  const model = typeof body.model === 'string' ? body.model : 'fake-default';
  const promptTokens = JSON.stringify(body.messages ?? []).length;
  const words = fake.reply.match(/\S+\s*/g) ?? [];
  const tool = fake.toolCall;
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: tool ? 5 : words.length,
    total_tokens: promptTokens + (tool ? 5 : words.length),
  };
  if (!body.stream) {
    const message = tool
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_fake_1',
              type: 'function',
              function: { name: tool.name, arguments: JSON.stringify(tool.arguments) },
            },
          ],
        }
      : { role: 'assistant', content: fake.reply };
    return call.json(200, {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      model,
      choices: [{ index: 0, message, finish_reason: tool ? 'tool_calls' : 'stop' }],
      usage,
    });
  }
  const chunk = (delta: unknown, finish: string | null = null) =>
    JSON.stringify({
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  let frames: string[];
  if (tool) {
    // Arguments arrive in pieces, as the real API sends them.
    const args = JSON.stringify(tool.arguments);
    const half = Math.floor(args.length / 2);
    frames = [
      chunk({
        role: 'assistant',
        content: null,
        tool_calls: [{ index: 0, id: 'call_fake_1', type: 'function', function: { name: tool.name, arguments: '' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, half) } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] }),
    ];
  } else {
    frames = [chunk({ role: 'assistant', content: '' }), ...words.map((w) => chunk({ content: w }))];
  }
  const last = [chunk({}, tool ? 'tool_calls' : 'stop')];
  if (body.stream_options?.include_usage)
    last.push(JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', model, choices: [], usage }));
  last.push('[DONE]');
  return call.stream(frames, last);
}
