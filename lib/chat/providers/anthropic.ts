/**
 * Anthropic (Messages API): `x-api-key` and `anthropic-version` headers,
 * the system prompt as the top-level `system`, `max_tokens` required
 * (default below), tools as `tool_use` / `tool_result` content blocks, and
 * streaming events message_start, content_block_start/delta/stop,
 * message_delta, message_stop (plus ping and error). `GET /models` lists
 * the models.
 */
import type {
  ChatMessage,
  ChatProvider,
  Completion,
  CompletionChunk,
  CompletionRequest,
  TokenUsage,
  ToolCall,
} from './provider.js';
import { isCallerAbort, parseJson, providerFetch } from './http-client.js';
import { listModelIds, toolCall } from './chat-completions.js';
import { classifyProviderError, unusableAnswer } from './provider-error.js';

export const ANTHROPIC_URL = 'https://api.anthropic.com/v1';
export const ANTHROPIC_VERSION = '2023-06-01';
export const ANTHROPIC_DEFAULT_MODEL = 'claude-3-5-haiku-latest';
/** The Messages API requires max_tokens; this is used when the request sets none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;

type Json = Record<string, unknown>;

/*
 * The Messages API's answers as read. A vendor may send anything, so every
 * member is optional and `unknown` until the code has checked it.
 */
interface Usage {
  readonly input_tokens?: unknown;
  readonly output_tokens?: unknown;
}
interface ContentBlock {
  readonly type?: unknown;
  readonly text?: unknown;
  readonly id?: unknown;
  readonly name?: unknown;
  readonly input?: unknown;
}
interface MessagesAnswer {
  readonly model?: unknown;
  readonly usage?: Usage;
  readonly content?: unknown;
}
interface StreamEvent {
  readonly type?: unknown;
  readonly index?: unknown;
  readonly message?: { readonly model?: unknown; readonly usage?: Usage };
  readonly content_block?: ContentBlock;
  readonly delta?: { readonly type?: unknown; readonly text?: unknown; readonly partial_json?: unknown };
  readonly usage?: Usage;
  readonly error?: { readonly type?: unknown };
}

export class AnthropicProvider implements ChatProvider {
  readonly id = 'anthropic' as const;
  private readonly baseUrl: string;

  constructor(
    private readonly apiKey: string | null,
    baseUrl: string | null,
    private readonly timeoutMs: number,
  ) {
    this.baseUrl = baseUrl ?? ANTHROPIC_URL;
  }

  private headers(): Record<string, string> {
    return { 'anthropic-version': ANTHROPIC_VERSION, ...(this.apiKey ? { 'x-api-key': this.apiKey } : {}) };
  }

  listModels(signal?: AbortSignal): Promise<string[]> {
    return listModelIds(this.id, `${this.baseUrl}/models?limit=1000`, this.headers(), this.timeoutMs, signal);
  }

  async complete(req: CompletionRequest, signal?: AbortSignal): Promise<Completion> {
    const answer = await providerFetch({
      provider: this.id,
      url: `${this.baseUrl}/messages`,
      headers: this.headers(),
      body: messagesBody(req),
      timeoutMs: this.timeoutMs,
      signal,
    });
    const body = parseJson(this.id, await answer.text()) as MessagesAnswer | null;
    if (!Array.isArray(body?.content)) throw unusableAnswer(this.id, 'no content blocks');
    let content = '';
    const toolCalls: ToolCall[] = [];
    for (const block of body.content as Array<ContentBlock | null>) {
      if (block?.type === 'text' && typeof block.text === 'string') content += block.text;
      if (block?.type === 'tool_use') toolCalls.push(toolCall(this.id, block.id, block.name, block.input ?? {}));
    }
    return {
      content,
      model: typeof body.model === 'string' ? body.model : modelOf(req),
      usage: usageOf(body.usage),
      ...(toolCalls.length ? { toolCalls } : {}),
    };
  }

  async *stream(req: CompletionRequest, signal?: AbortSignal): AsyncIterable<CompletionChunk> {
    let answer;
    try {
      answer = await providerFetch({
        provider: this.id,
        url: `${this.baseUrl}/messages`,
        headers: this.headers(),
        body: { ...messagesBody(req), stream: true },
        timeoutMs: this.timeoutMs,
        signal,
      });
    } catch (err) {
      if (isCallerAbort(err, signal)) return;
      throw err;
    }
    let content = '';
    let model = modelOf(req);
    let input = 0;
    let output = 0;
    let stopped = false;
    const blocks = new Map<number, { id: unknown; name: unknown; json: string }>();
    try {
      for await (const data of answer.events()) {
        const ev = parseJson(this.id, data) as StreamEvent | null;
        switch (ev?.type) {
          case 'message_start':
            if (typeof ev.message?.model === 'string') model = ev.message.model;
            input = num(ev.message?.usage?.input_tokens);
            output = num(ev.message?.usage?.output_tokens);
            break;
          case 'content_block_start':
            if (ev.content_block?.type === 'tool_use' && typeof ev.index === 'number') {
              blocks.set(ev.index, { id: ev.content_block.id, name: ev.content_block.name, json: '' });
            }
            break;
          case 'content_block_delta':
            if (ev.delta?.type === 'text_delta' && typeof ev.delta.text === 'string' && ev.delta.text) {
              content += ev.delta.text;
              yield { kind: 'token', text: ev.delta.text };
            } else if (ev.delta?.type === 'input_json_delta' && typeof ev.delta.partial_json === 'string') {
              const block = typeof ev.index === 'number' ? blocks.get(ev.index) : undefined;
              if (block) block.json += ev.delta.partial_json;
            }
            break;
          case 'message_delta':
            if (ev.usage?.output_tokens !== undefined) output = num(ev.usage.output_tokens);
            break;
          case 'message_stop':
            stopped = true;
            break;
          case 'error':
            // An error event mid-stream (overloaded_error, api_error...): the provider failed after answering 200.
            throw classifyProviderError(
              this.id,
              ev.error?.type === 'overloaded_error' ? 529 : 500,
              JSON.stringify(ev.error ?? {}),
            );
          default:
            break; // ping, content_block_stop
        }
        if (stopped) break;
      }
    } catch (err) {
      if (isCallerAbort(err, signal)) return;
      throw err;
    } finally {
      answer.cancel();
    }
    if (!stopped) throw unusableAnswer(this.id, 'the stream ended before message_stop');
    const toolCalls = [...blocks.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, b]) => toolCall(this.id, b.id, b.name, b.json || '{}'));
    yield {
      kind: 'done',
      completion: {
        content,
        model,
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
        ...(toolCalls.length ? { toolCalls } : {}),
      },
    };
  }
}

function modelOf(req: CompletionRequest): string {
  return req.model ?? ANTHROPIC_DEFAULT_MODEL;
}

/** The Messages API body: system messages joined into `system`, the rest as alternating user/assistant turns. */
export function messagesBody(req: CompletionRequest): Json {
  const system = req.messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .filter(Boolean)
    .join('\n\n');
  const turns: Array<{ role: 'user' | 'assistant'; content: Json[] }> = [];
  for (const message of req.messages) {
    if (message.role === 'system') continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = contentBlocks(message);
    if (blocks.length === 0) continue;
    const last = turns[turns.length - 1];
    // Consecutive turns of one role are merged: the API wants them alternating.
    if (last && last.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  }
  const body: Json = {
    model: modelOf(req),
    max_tokens: req.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages: turns,
  };
  if (system) body.system = system;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
    const choice = req.toolChoice;
    if (choice) {
      body.tool_choice =
        choice.type === 'tool'
          ? { type: 'tool', name: choice.name }
          : { type: choice.type === 'required' ? 'any' : choice.type };
    }
  }
  return body;
}

function contentBlocks(message: ChatMessage): Json[] {
  if (message.role === 'tool')
    return [{ type: 'tool_result', tool_use_id: message.toolCallId ?? '', content: message.content }];
  const out: Json[] = message.content ? [{ type: 'text', text: message.content }] : [];
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? [])
      out.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments });
  }
  return out;
}

function usageOf(usage: Usage | undefined): TokenUsage {
  const input = num(usage?.input_tokens);
  const output = num(usage?.output_tokens);
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
