/** Asks a provider for a summary of messages (compaction, Summarized merge). */
import type { ChatProvider } from '../providers/provider.js';
import { summaryRequest } from './compaction.js';
import type { ChatMessageRecord } from './message-record.js';

export async function summarize(
  provider: ChatProvider,
  messages: readonly ChatMessageRecord[],
  model: string | undefined,
  signal?: AbortSignal,
): Promise<string> {
  const completion = await provider.complete(
    { messages: summaryRequest(messages), ...(model ? { model } : {}) },
    signal,
  );
  return completion.content.trim();
}
