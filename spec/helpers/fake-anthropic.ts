/**
 * A fake Anthropic (Messages API) on 127.0.0.1: `GET /v1/models`, `POST
 * /v1/messages` whole or streamed (message_start, content_block_start,
 * a content_block_delta per word or `input_json_delta` pieces for a tool,
 * content_block_stop, message_delta with usage, message_stop, and a ping),
 * `tool_use` blocks when `toolCall` is set. Failures and stream faults as
 * fake-vendor.ts describes; errors use Anthropic's `{type: "error", error}`.
 */
import { startFakeVendor, type FakeVendor, type VendorCall } from './fake-vendor.js';

export const FAKE_ANTHROPIC_MODELS = ['claude-fake-haiku', 'claude-fake-sonnet'];

export function startFakeAnthropic(): Promise<FakeVendor> {
  return startFakeVendor('/v1', handle, (status, behaviour) => ({
    type: 'error',
    error:
      behaviour === 'insufficient_quota'
        ? { type: 'invalid_request_error', message: 'Your credit balance is too low to access the Anthropic API.' }
        : {
            type: status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : 'api_error',
            message: `fake failure ${status}`,
          },
  }));
}

function handle(call: VendorCall): void | Promise<void> {
  const { path, body, fake } = call;
  if (call.req.method === 'GET' && path.split('?')[0] === '/models') {
    return call.json(200, {
      data: FAKE_ANTHROPIC_MODELS.map((id) => ({ type: 'model', id, display_name: id })),
      has_more: false,
    });
  }
  if (call.req.method !== 'POST' || path !== '/messages')
    return call.json(404, { type: 'error', error: { type: 'not_found_error', message: path } });
  if (typeof body.max_tokens !== 'number')
    return call.json(400, {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
    });
  const model = body.model;
  const words = fake.reply.match(/\S+\s*/g) ?? [];
  const tool = fake.toolCall;
  const input = JSON.stringify(body.messages ?? []).length;
  const output = tool ? 5 : words.length;
  if (!body.stream) {
    const content = tool
      ? [{ type: 'tool_use', id: 'toolu_fake_1', name: tool.name, input: tool.arguments }]
      : [{ type: 'text', text: fake.reply }];
    return call.json(200, {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: tool ? 'tool_use' : 'end_turn',
      usage: { input_tokens: input, output_tokens: output },
    });
  }
  const ev = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const frames = [
    ev('message_start', {
      message: {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        usage: { input_tokens: input, output_tokens: 1 },
      },
    }),
    ev('ping', {}),
  ];
  if (tool) {
    const args = JSON.stringify(tool.arguments);
    const half = Math.floor(args.length / 2);
    frames.push(
      ev('content_block_start', {
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_fake_1', name: tool.name, input: {} },
      }),
      ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: args.slice(0, half) } }),
      ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: args.slice(half) } }),
    );
  } else {
    frames.push(ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
    for (const w of words) frames.push(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: w } }));
  }
  const last = [
    ev('content_block_stop', { index: 0 }),
    ev('message_delta', { delta: { stop_reason: tool ? 'tool_use' : 'end_turn' }, usage: { output_tokens: output } }),
    ev('message_stop', {}),
  ];
  return call.stream(frames, last);
}
