/**
 * Compaction (product.md, Chat): the older live messages are folded into one
 * synthetic summary message and marked forgotten; the most recent
 * `keep_recent` stay. Earlier summaries still live are folded into the new
 * one, so a chat session holds at most one live summary. This module is
 * the pure part: which messages fold, and the request that asks the
 * provider for the summary.
 */
import type { ChatMessage } from '../providers/provider.js';
import type { ChatMessageRecord } from './message-record.js';

export interface CompactionPlan {
  /** Conversation messages to fold (oldest first). */
  readonly fold: readonly ChatMessageRecord[];
  /** Earlier live summaries, folded too. */
  readonly summaries: readonly ChatMessageRecord[];
  readonly kept: readonly ChatMessageRecord[];
}

/** `messages` in conversation order; `keepRecent` 0 folds every live message. */
export function planCompaction(messages: readonly ChatMessageRecord[], keepRecent: number): CompactionPlan {
  const live = messages.filter((m) => !m.forgotten);
  const conversation = live.filter((m) => !m.summary);
  const split = Math.max(0, conversation.length - keepRecent);
  return {
    fold: conversation.slice(0, split),
    summaries: live.filter((m) => m.summary),
    kept: conversation.slice(split),
  };
}

export const SUMMARIZE_INSTRUCTION =
  'Summarize the conversation below for your own later reference. Keep facts, names, numbers, ' +
  'decisions and open questions; leave out pleasantries. Answer with the summary only.';

export function transcript(messages: readonly ChatMessageRecord[]): string {
  return messages.map((m) => `${m.summary ? 'summary' : m.role}: ${m.content}`).join('\n');
}

/** The provider messages that ask for a summary of `messages` (earlier summaries first). */
export function summaryRequest(messages: readonly ChatMessageRecord[]): ChatMessage[] {
  return [
    { role: 'system', content: SUMMARIZE_INSTRUCTION },
    { role: 'user', content: transcript(messages) },
  ];
}
