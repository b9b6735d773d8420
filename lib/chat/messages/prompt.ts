/**
 * Builds the provider request for one message (product.md, message flow):
 * one leading system message (the chat session's system prompt, then the
 * retrieved context, then any compaction summaries), the history (forgotten
 * messages excluded, the last `maxContextMessages` of them), then the user's
 * message. Pure: the same inputs give the same prompt.
 *
 * The context block is the documented form the built-in `local` provider
 * reads: a line `Context:` followed by one `[collection] {json}` line per
 * snippet, best first.
 */
import type { ChatMessage } from '../providers/provider.js';
import type { ChatMessageRecord, ContextSnippet } from './message-record.js';

export const DEFAULT_SYSTEM_PROMPT = 'You are a helpful assistant. Answer using the context when it is relevant.';
export const CONTEXT_HEADING = 'Context:';
export const SUMMARY_HEADING = 'Summary of the earlier conversation:';

export interface PromptParts {
  readonly systemPrompt: string | null;
  readonly snippets: readonly ContextSnippet[];
  /** The conversation so far, in order (forgotten messages and summaries among them are sorted out here). */
  readonly history: readonly ChatMessageRecord[];
  readonly maxContextMessages: number;
  readonly userMessage: string;
}

export function renderSnippet(snippet: ContextSnippet): string {
  const json = JSON.stringify(snippet.record, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  return `[${snippet.collection}] ${json}`;
}

/** The system message: prompt, context, summaries; blank-line separated, empty parts left out. */
export function systemMessage(
  parts: Pick<PromptParts, 'systemPrompt' | 'snippets'>,
  summaries: readonly string[],
): string {
  const sections = [parts.systemPrompt ?? DEFAULT_SYSTEM_PROMPT];
  if (parts.snippets.length > 0) sections.push([CONTEXT_HEADING, ...parts.snippets.map(renderSnippet)].join('\n'));
  for (const summary of summaries) sections.push(`${SUMMARY_HEADING}\n${summary}`);
  return sections.join('\n\n');
}

/** The replayed history: live (not forgotten) user and assistant messages, the most recent `max` of them. */
export function replayedHistory(history: readonly ChatMessageRecord[], max: number): ChatMessageRecord[] {
  const live = history.filter((m) => !m.forgotten && !m.summary && m.role !== 'system');
  return max <= 0 ? [] : live.slice(-max);
}

export function buildPrompt(parts: PromptParts): ChatMessage[] {
  const summaries = parts.history.filter((m) => m.summary && !m.forgotten).map((m) => m.content);
  return [
    { role: 'system', content: systemMessage(parts, summaries) },
    ...replayedHistory(parts.history, parts.maxContextMessages).map((m): ChatMessage => ({
      role: m.role,
      content: m.content,
    })),
    { role: 'user', content: parts.userMessage },
  ];
}
