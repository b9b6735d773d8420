/**
 * What the chat pages share: the shapes of sessions, messages and snippets as the server sends them, the rights a
 * key needs for each chat action (sessions and messages are records of two internal collections), and small
 * readers for typed message records.
 */
import { canUseCollection, type Access } from '../access.js';
import { isTyped } from '../values.js';

export const SESSIONS_COLLECTION = 'chat_configurations_default';
export const MESSAGES_COLLECTION = 'chat_messages_default';

export const MERGE_STRATEGIES = ['Chronological', 'Interleaved', 'LatestOnly', 'Summarized'] as const;

export interface SearchedCollection {
  collection_name: string;
  fields?: unknown[];
}

export interface ChatSession {
  chat_id: string;
  created_at: string;
  updated_at: string;
  llm_provider: string;
  llm_model: string;
  collections: SearchedCollection[];
  system_prompt?: string | null;
  title: string | null;
  parent_id?: string | null;
  branch_point_idx?: number | null;
  message_count: number;
}

export interface Snippet {
  collection: string;
  record: Record<string, unknown>;
  score?: number;
}

/** A stored message with its typed values unwrapped. */
export interface ChatMessage {
  id: string;
  role: string;
  content: string;
  created_at: string;
  context_snippets: Snippet[];
  forgotten: boolean;
  llm_provider?: string;
  llm_model?: string;
  summary?: boolean;
}

export interface ProviderStatus {
  status: string;
  verified: boolean;
  http_status?: number;
  message?: string;
  model_count?: number;
}

export type ChatModels = Record<string, string[]> & { providers?: Record<string, ProviderStatus> };

/** Strips the `{type, value}` wrapping of typed records, deeply (snippet records stay as stored). */
export function bare(v: unknown): unknown {
  if (isTyped(v)) return bare(v.value);
  if (Array.isArray(v)) return v.map(bare);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, bare(x)]));
  return v;
}

/** A message record (typed or bare) as the conversation view shows it. */
export function toMessage(raw: Record<string, unknown>): ChatMessage {
  const m = bare(raw) as Record<string, unknown>;
  return {
    id: String(m.id),
    role: String(m.role ?? ''),
    content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''),
    created_at: String(m.created_at ?? ''),
    context_snippets: Array.isArray(m.context_snippets) ? (m.context_snippets as Snippet[]) : [],
    forgotten: m.forgotten === true,
    llm_provider: typeof m.llm_provider === 'string' ? m.llm_provider : undefined,
    llm_model: typeof m.llm_model === 'string' ? m.llm_model : undefined,
    summary: m.summary === true,
  };
}

/** A session's name for people: its title, else the start of its id. */
export function sessionName(s: Pick<ChatSession, 'title' | 'chat_id'>): string {
  return s.title?.trim() || `Session ${s.chat_id.slice(0, 8)}`;
}

/** What the key may do with chat sessions: `read` lists and opens them, `write` creates, sends, branches, deletes. */
export function chatRights(access: Access | null): { read: boolean; write: boolean } {
  const both = (mode: 'read' | 'write') =>
    canUseCollection(access, SESSIONS_COLLECTION, mode) && canUseCollection(access, MESSAGES_COLLECTION, mode);
  return { read: both('read'), write: both('write') };
}

/** The id of a snippet's record, to link to it (undefined when the record carries none). */
export function snippetId(s: Snippet): string | undefined {
  const id = s.record?.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

export function shortTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString('en-GB', { dateStyle: 'short', timeStyle: 'short' });
}
