/**
 * A deterministic in-process ChatProvider for chat-session tests (a stand-in
 * until the offline `local` provider merges): it answers `reply: <last user
 * message>`, counts words as tokens, streams its answer word by word, and
 * keeps every request it received. `failWith` makes the next calls fail
 * with a given classified error. `directory()` serves it under any ids.
 */
import { ProviderFailed } from '../../lib/errors.js';
import type {
  ChatProvider,
  Completion,
  CompletionChunk,
  CompletionRequest,
  ProviderDirectory,
  ProviderId,
} from '../../lib/chat/index.js';

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

export class ScriptedProvider implements ChatProvider {
  readonly requests: CompletionRequest[] = [];
  failWith: ProviderFailed | undefined;

  constructor(
    readonly id: ProviderId = 'openai',
    readonly model = 'scripted-1',
  ) {}

  async listModels(): Promise<string[]> {
    return [this.model];
  }

  async complete(req: CompletionRequest): Promise<Completion> {
    this.requests.push(req);
    if (this.failWith) throw this.failWith;
    const lastUser = [...req.messages].reverse().find((m) => m.role === 'user');
    const content = `reply: ${lastUser?.content ?? ''}`;
    const prompt = req.messages.reduce((n, m) => n + words(m.content), 0);
    const completion = words(content);
    return {
      content,
      model: req.model ?? this.model,
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    };
  }

  async *stream(req: CompletionRequest): AsyncIterable<CompletionChunk> {
    const done = await this.complete(req);
    for (const w of done.content.split(/(?<=\s)/)) yield { kind: 'token', text: w };
    yield { kind: 'done', completion: done };
  }

  /** The last request's system message. */
  lastSystem(): string {
    return this.requests.at(-1)?.messages[0]?.content ?? '';
  }
}

/** A directory serving `provider` under each of `ids`; any other id is the classified `provider_not_configured`. */
export function directory(
  provider: ChatProvider,
  ids: readonly ProviderId[] = ['openai', 'anthropic', 'perplexity', 'local'],
): ProviderDirectory {
  return {
    get(id: string): ChatProvider {
      if (!(ids as readonly string[]).includes(id))
        throw new ProviderFailed(`LLM provider '${id}' is not configured`, 'provider_not_configured', id, null);
      return provider;
    },
    configured: () => ids,
  };
}
