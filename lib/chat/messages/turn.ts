/**
 * One turn of a conversation: retrieve context for the user's text, build
 * the prompt from the chat session and its history (`prepareTurn`), ask the
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
  readonly chatSession: ChatSession;
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

export async function prepareTurn(deps: TurnDeps, session: Session, input: TurnInput): Promise<PreparedTurn> {
  const { chatSession } = input;
  // The provider first: an unconfigured one fails before any search work.
  const provider = deps.providers.get(chatSession.llm_provider);
  const snippets = await retrieve(session, chatSession.collections, input.userText, deps.embedder);
  const messages = buildPrompt({
    systemPrompt: chatSession.system_prompt,
    snippets,
    history: input.history,
    maxContextMessages: chatSession.max_context_messages ?? DEFAULT_CONTEXT_MESSAGES,
    userMessage: input.userText,
  });
  const model = input.model ?? chatSession.llm_model ?? undefined;
  const request: CompletionRequest = {
    messages,
    ...(model !== undefined ? { model } : {}),
    ...(chatSession.max_tokens !== null ? { maxTokens: chatSession.max_tokens } : {}),
    ...(chatSession.temperature !== null ? { temperature: chatSession.temperature } : {}),
  };
  return { provider, request, snippets };
}

/** What the provider answered, with the model to record: the one it reported, else the one asked for. */
export function turnResult(prepared: PreparedTurn, completion: Completion): TurnResult {
  return { completion, snippets: prepared.snippets, model: completion.model || prepared.request.model || '' };
}

/** A whole turn in one provider call (no streaming). */
export async function runTurn(deps: TurnDeps, session: Session, input: TurnInput): Promise<TurnResult> {
  const prepared = await prepareTurn(deps, session, input);
  return turnResult(prepared, await prepared.provider.complete(prepared.request, input.signal));
}
