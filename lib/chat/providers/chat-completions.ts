/**
 * The OpenAI Chat Completions wire API, shared by the adapters that speak
 * it (openai, perplexity, openai_compatible): request bodies from a
 * CompletionRequest, answers and streamed chunks back to Completion and
 * CompletionChunk, tool calls both ways.
 *
 * Streaming asks for `stream_options.include_usage`, so the last chunk
 * carries the usage; a stream that ends without `[DONE]` or a finish reason
 * was cut off and fails as provider_unavailable.
 */
import type { ChatMessage, Completion, CompletionChunk, CompletionRequest, TokenUsage, ToolCall } from './provider.js';
import { isCallerAbort, parseJson, providerFetch } from './http-client.js';
import { classifyProviderError, unusableAnswer } from './provider-error.js';

export interface ChatCompletionsEndpoint {
  readonly provider: string;
  /** Base URL; `/chat/completions`, `/models`, `/embeddings` are appended. */
  readonly baseUrl: string;
  readonly apiKey: string | null;
  readonly timeoutMs: number;
}

type Json = Record<string, unknown>;

/*
 * The Chat Completions answers as read. A vendor may send anything, so every
 * member is optional and `unknown` until the code has checked it.
 */
interface Usage {
  readonly prompt_tokens?: unknown;
  readonly completion_tokens?: unknown;
  readonly total_tokens?: unknown;
}
interface Choice {
  readonly message?: { readonly content?: unknown; readonly tool_calls?: unknown };
  readonly delta?: { readonly content?: unknown; readonly tool_calls?: unknown };
  readonly finish_reason?: unknown;
}
interface CompletionAnswer {
  readonly model?: unknown;
  readonly usage?: Usage;
  readonly choices?: ReadonlyArray<Choice | null>;
  readonly error?: unknown;
}
interface ListAnswer {
  readonly data?: unknown;
}
interface ToolCallAnswer {
  readonly id?: unknown;
  readonly function?: { readonly name?: unknown; readonly arguments?: unknown };
}

export function authHeaders(apiKey: string | null): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}

/** The request body (without `stream`). */
export function chatCompletionsBody(req: CompletionRequest, model: string): Json {
  const body: Json = { model, messages: req.messages.map(wireMessage) };
  if (req.maxTokens !== undefined) body.max_tokens = req.maxTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    const choice = req.toolChoice;
    if (choice)
      body.tool_choice = choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type;
  }
  return body;
}

function wireMessage(message: ChatMessage): Json {
  if (message.role === 'tool')
    return { role: 'tool', tool_call_id: message.toolCallId ?? '', content: message.content };
  if (message.role === 'assistant' && message.toolCalls?.length) {
    return {
      role: 'assistant',
      content: message.content || null,
      tool_calls: message.toolCalls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: JSON.stringify(c.arguments) },
      })),
    };
  }
  return { role: message.role, content: message.content };
}

export async function completeChat(
  ep: ChatCompletionsEndpoint,
  req: CompletionRequest,
  model: string,
  signal?: AbortSignal,
): Promise<Completion> {
  const answer = await providerFetch({
    provider: ep.provider,
    url: `${ep.baseUrl}/chat/completions`,
    headers: authHeaders(ep.apiKey),
    body: chatCompletionsBody(req, model),
    timeoutMs: ep.timeoutMs,
    signal,
  });
  const body = parseJson(ep.provider, await answer.text()) as CompletionAnswer | null;
  const message = body?.choices?.[0]?.message;
  if (!message || typeof message !== 'object') throw unusableAnswer(ep.provider, 'no choices[0].message');
  const calls: unknown = message.tool_calls;
  const toolCalls = Array.isArray(calls)
    ? calls.map((c: ToolCallAnswer | null) => toolCall(ep.provider, c?.id, c?.function?.name, c?.function?.arguments))
    : [];
  return {
    content: typeof message.content === 'string' ? message.content : '',
    model: typeof body?.model === 'string' ? body.model : model,
    usage: usageOf(body?.usage),
    ...(toolCalls.length ? { toolCalls } : {}),
  };
}

export async function* streamChat(
  ep: ChatCompletionsEndpoint,
  req: CompletionRequest,
  model: string,
  signal?: AbortSignal,
): AsyncGenerator<CompletionChunk> {
  let answer;
  try {
    answer = await providerFetch({
      provider: ep.provider,
      url: `${ep.baseUrl}/chat/completions`,
      headers: authHeaders(ep.apiKey),
      body: { ...chatCompletionsBody(req, model), stream: true, stream_options: { include_usage: true } },
      timeoutMs: ep.timeoutMs,
      signal,
    });
  } catch (err) {
    if (isCallerAbort(err, signal)) return;
    throw err;
  }
  let content = '';
  let answeredModel = model;
  let usage: TokenUsage | undefined;
  let finished = false;
  const calls = new Map<number, { id: string; name: string; args: string }>();
  try {
    for await (const data of answer.events()) {
      if (data.trim() === '[DONE]') {
        finished = true;
        break;
      }
      const chunk = parseJson(ep.provider, data) as CompletionAnswer | null;
      if (chunk?.error) throw classifyProviderError(ep.provider, 500, JSON.stringify(chunk.error));
      if (typeof chunk?.model === 'string') answeredModel = chunk.model;
      if (chunk?.usage) usage = usageOf(chunk.usage);
      const choice = chunk?.choices?.[0];
      if (choice?.finish_reason) finished = true;
      const delta = choice?.delta;
      if (typeof delta?.content === 'string' && delta.content) {
        content += delta.content;
        yield { kind: 'token', text: delta.content };
      }
      for (const piece of Array.isArray(delta?.tool_calls) ? delta.tool_calls : []) {
        const index = typeof piece.index === 'number' ? piece.index : calls.size;
        const call = calls.get(index) ?? { id: '', name: '', args: '' };
        if (typeof piece.id === 'string') call.id = piece.id;
        if (typeof piece.function?.name === 'string') call.name += piece.function.name;
        if (typeof piece.function?.arguments === 'string') call.args += piece.function.arguments;
        calls.set(index, call);
      }
    }
  } catch (err) {
    if (isCallerAbort(err, signal)) return;
    throw err;
  } finally {
    answer.cancel();
  }
  if (!finished) throw unusableAnswer(ep.provider, 'the stream ended before the answer was complete');
  const toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, c]) => toolCall(ep.provider, c.id, c.name, c.args));
  yield {
    kind: 'done',
    completion: {
      content,
      model: answeredModel,
      usage: usage ?? estimatedUsage(req, content),
      ...(toolCalls.length ? { toolCalls } : {}),
    },
  };
}

/** Model ids from `GET /models` (`{data: [{id}]}`), sorted. */
export async function listModelIds(
  provider: string,
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<string[]> {
  const answer = await providerFetch({ provider, url, headers, timeoutMs, signal });
  const body = parseJson(provider, await answer.text()) as ListAnswer | null;
  if (!Array.isArray(body?.data)) throw unusableAnswer(provider, 'no model list');
  return body.data
    .map((m: Json) => m?.id)
    .filter((id: unknown): id is string => typeof id === 'string')
    .sort();
}

/** `POST /embeddings`: one vector per text, in input order. */
export async function embedTexts(
  ep: ChatCompletionsEndpoint,
  texts: readonly string[],
  model: string,
  signal?: AbortSignal,
): Promise<number[][]> {
  const answer = await providerFetch({
    provider: ep.provider,
    url: `${ep.baseUrl}/embeddings`,
    headers: authHeaders(ep.apiKey),
    body: { model, input: texts },
    timeoutMs: ep.timeoutMs,
    signal,
  });
  const body = parseJson(ep.provider, await answer.text()) as ListAnswer | null;
  const rows = Array.isArray(body?.data)
    ? [...body.data].sort((a: Json | null, b: Json | null) => count(a?.index) - count(b?.index))
    : [];
  if (
    rows.length !== texts.length ||
    !rows.every((r: Json) => Array.isArray(r?.embedding) && r.embedding.every((x: unknown) => typeof x === 'number'))
  ) {
    throw unusableAnswer(ep.provider, 'no embeddings for every text');
  }
  return rows.map((r: Json) => r.embedding as number[]);
}

/** A tool call with its JSON arguments parsed; arguments that are not a JSON object make the answer unusable. */
export function toolCall(provider: string, id: unknown, name: unknown, args: unknown): ToolCall {
  if (typeof name !== 'string' || !name) throw unusableAnswer(provider, 'a tool call without a name');
  let parsed: unknown = args ?? {};
  if (typeof args === 'string') {
    try {
      parsed = args.trim() ? JSON.parse(args) : {};
    } catch {
      throw unusableAnswer(provider, `tool call '${name}' has arguments that are not JSON`);
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw unusableAnswer(provider, `tool call '${name}' has arguments that are not an object`);
  return { id: typeof id === 'string' && id ? id : `call_${name}`, name, arguments: parsed as Record<string, unknown> };
}

export function usageOf(usage: Usage | undefined): TokenUsage {
  const prompt = count(usage?.prompt_tokens);
  const completion = count(usage?.completion_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: count(usage?.total_tokens) || prompt + completion,
  };
}

/** When a stream sends no usage: whitespace-separated words, the local provider's rule. */
export function estimatedUsage(req: CompletionRequest, content: string): TokenUsage {
  const prompt = req.messages.reduce((sum, m) => sum + countWords(m.content), 0);
  const completion = countWords(content);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

export function countWords(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

/** A finite number a vendor sent, else 0. */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
