/**
 * The stored form of a chat session: one record of `chat_configurations_{db}`
 * whose id is the chat id. Strings are explicit String values (a title that
 * looks like a date stays text); optional settings that are unset are not
 * stored. Reading is defensive like message-record.ts.
 */
import { bareValue, isPlainObject, type Fields } from '../../engine/index.js';
import { dateTime, millisOf, stringOf, text } from '../messages/message-record.js';
import type { ChatSession, CollectionConfig, SessionSettings } from './chat-session-config.js';

/** The wire body that stores a session's settings and times (insert, or a full update). */
export function sessionToStored(s: SessionSettings & { created_at: number; updated_at: number }): Record<string, unknown> {
  const opt = (k: string, v: unknown, wrap: (x: never) => unknown = (x) => x) => (v === null || v === undefined ? {} : { [k]: wrap(v as never) });
  return {
    llm_provider: text(s.llm_provider),
    ...opt('llm_model', s.llm_model, text),
    collections: { type: 'Array', value: s.collections },
    ...opt('system_prompt', s.system_prompt, text),
    ...opt('agent_id', s.agent_id, text),
    ...opt('max_context_messages', s.max_context_messages),
    ...opt('max_tokens', s.max_tokens),
    ...opt('temperature', s.temperature, (x: number) => ({ type: 'Float', value: x })),
    ...opt('tool_config', s.tool_config, (x: object) => ({ type: 'Object', value: x })),
    ...opt('title', s.title, text),
    ...opt('memory', s.memory, (x: unknown) => (Array.isArray(x) ? { type: 'Array', value: x } : isPlainObject(x) ? { type: 'Object', value: x } : x)),
    ...opt('parent_id', s.parent_id, text),
    ...opt('branch_point_idx', s.branch_point_idx),
    created_at: dateTime(s.created_at), updated_at: dateTime(s.updated_at),
  };
}

/** Members a full update must clear when the session no longer sets them. */
export const OPTIONAL_SESSION_MEMBERS = ['llm_model', 'system_prompt', 'agent_id', 'max_context_messages', 'max_tokens', 'temperature',
  'tool_config', 'title', 'memory', 'parent_id', 'branch_point_idx'] as const;

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function collectionsOf(v: unknown): CollectionConfig[] {
  if (!Array.isArray(v)) return [];
  return v.filter((c): c is CollectionConfig => isPlainObject(c) && typeof c.collection_name === 'string')
    .map((c) => ({ ...c, fields: Array.isArray(c.fields) ? c.fields : [] }));
}

export function sessionFromStored(f: Fields): ChatSession {
  const raw = (k: string) => (f[k] === undefined ? undefined : bareValue(f[k]!));
  const tool = raw('tool_config');
  return {
    id: String(f.id),
    llm_provider: stringOf(f.llm_provider) ?? '',
    llm_model: stringOf(f.llm_model) ?? null,
    collections: collectionsOf(raw('collections')),
    system_prompt: stringOf(f.system_prompt) ?? null,
    agent_id: stringOf(f.agent_id) ?? null,
    max_context_messages: num(raw('max_context_messages')),
    max_tokens: num(raw('max_tokens')),
    temperature: num(raw('temperature')),
    tool_config: isPlainObject(tool) ? tool : null,
    title: stringOf(f.title) ?? null,
    memory: raw('memory') ?? null,
    parent_id: stringOf(f.parent_id) ?? null,
    branch_point_idx: num(raw('branch_point_idx')),
    created_at: millisOf(f.created_at), updated_at: millisOf(f.updated_at),
  };
}
