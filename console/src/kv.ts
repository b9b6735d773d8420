/** What the key-value pages share: an entry as POST /api/kv/find answers it, and a literal key as a pattern. */

export interface KvFound {
  key: string;
  /** Typed at the top (`{type, value}`). */
  value: unknown;
  /** ISO time when the key expires; absent when it never does. */
  expires_at?: string;
}

/** A regular expression matching `text` literally. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
