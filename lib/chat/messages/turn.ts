/**
 * One turn of a conversation: retrieve context for the user's text, build
 * the prompt from the session and its history (`prepareTurn`), ask the
 * provider in one call (`runTurn`) or streamed (the caller reads
 * `provider.stream` and ends with `turnResult`). The caller
 * stores what came back (a new exchange for a message, a replaced reply for
 * regenerate). Nothing is stored when the provider fails, so a failed turn
 * leaves the conversation as it was.
 */
import type { Session } from '../../engine/index.js';
import type { Embedder } from '../../vector/index.js';
import type { ChatProvider, Completion, CompletionRequest, ProviderDirectory } from '../providers/provider.js';
import type { ChatMessageRecord, ContextSnippet } from './message-record.js';
import { DEFAULT_CONTEXT_MESSAGES } from '../chat-sessions/names.js';
import { buildPrompt } from './prompt.js';
import { retrieve } from './retrieval.js';
import type { ToolHistory } from './tool-turn.js';
import type { ChatSession } from '../chat-sessions/chat-session-config.js';

export interface TurnDeps {
  readonly providers: ProviderDirectory;
  readonly embedder: () => Embedder;
}

export interface TurnInput {
  readonly session: ChatSession;
  /** The conversation before the user's message, in order. */
  readonly history: readonly ChatMessageRecord[];
  readonly userText: string;
  /** A per-message model override. */
  readonly model?: string;
  readonly signal?: AbortSignal;
}

export interface TurnResult {
  readonly completion: Completion;
  readonly snippets: readonly ContextSnippet[];
  /** The model named in the answer's record: what the provider reported, else what was asked. */
  readonly model: string;
  /** What the tools did, when the turn ran any. */
  readonly toolHistory?: ToolHistory;
}

/** A turn ready to send: the provider, the request, and the context it holds. */
export interface PreparedTurn {
  readonly provider: ChatProvider;
  readonly request: CompletionRequest;
  readonly snippets: readonly ContextSnippet[];
}

export async function prepareTurn(deps: TurnDeps, db: Session, t: TurnInput): Promise<PreparedTurn> {
  // The provider first: an unconfigured one fails before any search work.
  const provider = deps.providers.get(t.session.llm_provider);
  const snippets = await retrieve(db, t.session.collections, t.userText, deps.embedder);
  const messages = buildPrompt({
    systemPrompt: t.session.system_prompt, snippets, history: t.history,
    maxContextMessages: t.session.max_context_messages ?? DEFAULT_CONTEXT_MESSAGES, userMessage: t.userText,
  });
  const model = t.model ?? t.session.llm_model ?? undefined;
  const request: CompletionRequest = {
    messages,
    ...(model !== undefined ? { model } : {}),
    ...(t.session.max_tokens !== null ? { maxTokens: t.session.max_tokens } : {}),
    ...(t.session.temperature !== null ? { temperature: t.session.temperature } : {}),
  };
  return { provider, request, snippets };
}

/** What the provider answered, with the model to record: the one it reported, else the one asked for. */
export function turnResult(p: PreparedTurn, completion: Completion): TurnResult {
  return { completion, snippets: p.snippets, model: completion.model || p.request.model || '' };
}

/** A whole turn in one provider call (no streaming). */
export async function runTurn(deps: TurnDeps, db: Session, t: TurnInput): Promise<TurnResult> {
  const p = await prepareTurn(deps, db, t);
  return turnResult(p, await p.provider.complete(p.request, t.signal));
}
