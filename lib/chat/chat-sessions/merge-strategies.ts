/**
 * Merge strategies (protocol.md 2.12 POST /api/chat/merge): which messages
 * of the source chat sessions the target receives, in what order. Forgotten
 * messages are not carried over. An "exchange" is a user message with the
 * replies that follow it (so a question never lands apart from its answer).
 *
 * - Chronological: every message of every source, by creation time.
 * - Interleaved: one exchange from each source in turn (sources in the order
 *   given), until all are used up.
 * - LatestOnly: the most recent exchange of each source, by creation time.
 * - Summarized: one summary per source, written by the provider (the
 *   service asks; this module only says which messages each summary covers).
 *
 * The clients spell strategies in PascalCase; the contract's lowercase
 * `chronological` / `interleaved` (and `latest_only`, `summarized`) are the same.
 */
import { InvalidInput } from '../../errors.js';
import { byConversationOrder, type ChatMessageRecord } from '../messages/message-record.js';

export const MERGE_STRATEGIES = ['Chronological', 'Summarized', 'LatestOnly', 'Interleaved'] as const;
export type MergeStrategy = (typeof MERGE_STRATEGIES)[number];

export function parseMergeStrategy(raw: unknown): MergeStrategy {
  const key = typeof raw === 'string' ? raw.replace(/[_\s-]/g, '').toLowerCase() : undefined;
  const found = MERGE_STRATEGIES.find((s) => s.toLowerCase() === key);
  if (!found) throw new InvalidInput(`'merge_strategy' must be one of ${MERGE_STRATEGIES.join(', ')}`);
  return found;
}

/** A source chat session's messages, in conversation order. */
export interface MergeSource {
  readonly chatId: string;
  readonly messages: readonly ChatMessageRecord[];
}

/**
 * Splits a conversation into exchanges: each user message starts one; anything before the first belongs to the first.
 */
export function exchanges(messages: readonly ChatMessageRecord[]): ChatMessageRecord[][] {
  const out: ChatMessageRecord[][] = [];
  for (const message of messages) {
    if (message.role === 'user' || out.length === 0) out.push([message]);
    else out[out.length - 1]!.push(message);
  }
  return out;
}

const live = (source: MergeSource) => source.messages.filter((m) => !m.forgotten);

/** The messages to copy, in target order, for every strategy but Summarized (which summarizes `live` per source). */
export function mergedMessages(
  strategy: Exclude<MergeStrategy, 'Summarized'>,
  sources: readonly MergeSource[],
): ChatMessageRecord[] {
  switch (strategy) {
    case 'Chronological':
      return sources.flatMap(live).sort(byConversationOrder);
    case 'LatestOnly':
      return sources.flatMap((s) => exchanges(live(s)).at(-1) ?? []).sort(byConversationOrder);
    case 'Interleaved': {
      const queues = sources.map((s) => exchanges(live(s)));
      const out: ChatMessageRecord[] = [];
      for (let round = 0; queues.some((queue) => round < queue.length); round++) {
        for (const queue of queues) if (round < queue.length) out.push(...queue[round]!);
      }
      return out;
    }
  }
}

/** What a Summarized merge summarizes per source: its live messages. */
export function summarizedSources(
  sources: readonly MergeSource[],
): Array<{ chatId: string; messages: ChatMessageRecord[] }> {
  return sources.map((s) => ({ chatId: s.chatId, messages: live(s) })).filter((s) => s.messages.length > 0);
}

/**
 * A branch starts with the parent's messages up to `branchPointIdx`
 * (inclusive, counted over the parent's messages in order as
 * GET .../messages lists them); no index means all of them.
 */
export function branchMessages(
  parent: readonly ChatMessageRecord[],
  branchPointIdx: number | null,
): ChatMessageRecord[] {
  if (branchPointIdx === null) return [...parent];
  if (branchPointIdx >= parent.length) {
    throw new InvalidInput(
      `'branch_point_idx' ${branchPointIdx} is past the parent's last message (it has ${parent.length})`,
    );
  }
  return parent.slice(0, branchPointIdx + 1);
}
