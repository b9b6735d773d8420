/**
 * The built-in `local` provider: deterministic, no key, no network. It is
 * not a language model; it lets applications run their chat flows (and
 * tests) offline. The same request always gets the same answer:
 *
 *   Question: <the last user message>
 *   Context:
 *   - <snippet 1>
 *   - <snippet 2>
 *
 * or, with no snippets, `Question: <...>` and `No context was found.`.
 * Snippets are read from the system and earlier user messages: the
 * non-empty lines after a line ending in `Context:` (case-insensitive,
 * e.g. "Relevant context:"), up to the next blank line, with a leading
 * `- `, `* ` or `[n] ` dropped; at most MAX_SNIPPETS, each cut to
 * MAX_SNIPPET_CHARS. `contextBlock` writes that form for prompt builders.
 *
 * Tokens are whitespace-separated words: prompt_tokens counts the words of
 * every message, completion_tokens those of the answer, and `max_tokens`
 * cuts the answer to that many words. Streaming yields one word (with the
 * whitespace after it) per chunk.
 *
 * Tools: with tools offered and a tool choice of `required` or `tool`, or
 * `auto` when the last user message names an offered tool, it asks for one
 * call (the named tool, else the first): `{query: <last user message>}`,
 * or that text under each required string parameter of the tool's schema.
 * When the conversation ends with tool results it answers
 * `Tool results:` and one `- <name>: <content>` line per result instead.
 */
import { OfflineEmbedder, OFFLINE_MODEL } from '../../vector/index.js';
import type {
  ChatMessage,
  ChatProvider,
  Completion,
  CompletionChunk,
  CompletionRequest,
  ToolCall,
  ToolSpec,
} from './provider.js';
import { countWords } from './chat-completions.js';

export const LOCAL_MODEL = 'eddydb-local';
export const MAX_SNIPPETS = 8;
export const MAX_SNIPPET_CHARS = 300;

const offline = new OfflineEmbedder();

/** Context snippets in the form the local provider reads back (and any model reads well). */
export function contextBlock(snippets: readonly string[]): string {
  return snippets.length ? `Context:\n${snippets.map((s) => `- ${s.replace(/\s+/g, ' ').trim()}`).join('\n')}` : '';
}

export class LocalProvider implements ChatProvider {
  readonly id = 'local' as const;

  async listModels(): Promise<string[]> {
    return [LOCAL_MODEL];
  }

  async complete(req: CompletionRequest, signal?: AbortSignal): Promise<Completion> {
    signal?.throwIfAborted();
    return localCompletion(req);
  }

  async *stream(req: CompletionRequest, signal?: AbortSignal): AsyncIterable<CompletionChunk> {
    const completion = localCompletion(req);
    for (const word of completion.content.match(/\S+\s*/g) ?? []) {
      if (signal?.aborted) return;
      yield { kind: 'token', text: word };
      // Let the event loop run between words, as a network stream would (and so a cancel lands).
      await new Promise<void>((r) => setImmediate(r));
    }
    if (signal?.aborted) return;
    yield { kind: 'done', completion };
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    return offline.embed([...texts]);
  }
}

export const LOCAL_EMBEDDING_MODEL = OFFLINE_MODEL;

function localCompletion(req: CompletionRequest): Completion {
  const lastUser = [...req.messages].reverse().find((m) => m.role === 'user');
  const question = lastUser?.content.trim() ?? '';
  const call = toolCallFor(req, question);
  let content = '';
  if (!call) {
    const results = trailingToolResults(req.messages);
    content = results.length
      ? answerFromTools(results, req.messages)
      : answerFromContext(question, snippetsOf(req.messages, lastUser));
    if (req.maxTokens !== undefined)
      content = (content.match(/\S+\s*/g) ?? []).slice(0, Math.max(0, req.maxTokens)).join('').trimEnd();
  }
  const prompt = req.messages.reduce((n, m) => n + countWords(m.content), 0);
  const completion = countWords(content);
  return {
    content,
    model: LOCAL_MODEL,
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    ...(call ? { toolCalls: [call] } : {}),
  };
}

function answerFromContext(question: string, snippets: string[]): string {
  const head = `Question: ${question}`;
  return snippets.length
    ? `${head}\nContext:\n${snippets.map((s) => `- ${s}`).join('\n')}`
    : `${head}\nNo context was found.`;
}

/** Snippets of the system messages and of the user messages before the last one. */
function snippetsOf(messages: readonly ChatMessage[], lastUser: ChatMessage | undefined): string[] {
  const out: string[] = [];
  for (const message of messages) {
    if ((message.role !== 'system' && message.role !== 'user') || message === lastUser) continue;
    let inBlock = false;
    for (const raw of message.content.split(/\r?\n/)) {
      const line = raw.trim();
      if (/context:$/i.test(line)) {
        inBlock = true;
        continue;
      }
      if (!inBlock) continue;
      if (line === '') {
        inBlock = false;
        continue;
      }
      const text = line.replace(/^(?:[-*]\s+|\[\d+\]\s*)/, '');
      if (text) out.push(text.length > MAX_SNIPPET_CHARS ? text.slice(0, MAX_SNIPPET_CHARS) : text);
      if (out.length === MAX_SNIPPETS) return out;
    }
  }
  return out;
}

function trailingToolResults(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let index = messages.length - 1; index >= 0 && messages[index]!.role === 'tool'; index--)
    out.unshift(messages[index]!);
  return out;
}

function answerFromTools(results: ChatMessage[], messages: readonly ChatMessage[]): string {
  const names = new Map<string, string>();
  for (const message of messages) for (const call of message.toolCalls ?? []) names.set(call.id, call.name);
  const lines = results.map((r) => `- ${names.get(r.toolCallId ?? '') ?? 'tool'}: ${r.content}`);
  return `Tool results:\n${lines.join('\n')}`;
}

/** The one tool call this request gets, if any (see the header). */
function toolCallFor(req: CompletionRequest, question: string): ToolCall | undefined {
  const tools = req.tools ?? [];
  const choice = req.toolChoice ?? { type: 'auto' };
  if (tools.length === 0 || choice.type === 'none') return undefined;
  if (req.messages[req.messages.length - 1]?.role === 'tool') return undefined;
  let tool: ToolSpec | undefined;
  if (choice.type === 'tool') tool = tools.find((t) => t.name === choice.name) ?? tools[0];
  else if (choice.type === 'required') tool = tools.find((t) => question.includes(t.name)) ?? tools[0];
  else tool = tools.find((t) => question.includes(t.name));
  if (!tool) return undefined;
  return { id: `call_local_${tool.name}`, name: tool.name, arguments: argumentsFor(tool, question) };
}

function argumentsFor(tool: ToolSpec, question: string): Record<string, unknown> {
  const props = (tool.parameters.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = Array.isArray(tool.parameters.required) ? (tool.parameters.required as unknown[]) : [];
  const args: Record<string, unknown> = {};
  for (const name of required) {
    if (typeof name === 'string' && Object.hasOwn(props, name) && props[name]?.type === 'string') args[name] = question;
  }
  return Object.keys(args).length ? args : { query: question };
}
