/**
 * The stored form of a chat session: one record of `chat_configurations_{db}`
 * whose id is the chat id. Strings are explicit String values (a title that
 * looks like a date stays text); optional settings that are unset are not
 * stored. Reading is defensive like message-record.ts.
 */
import { bareValue, isPlainObject, type Fields } from '../../engine/index.js';
import { dateTime, millisOf, stringOf, text } from '../messages/message-record.js';
import type { ChatSession, ChatSessionSettings, CollectionConfig } from './chat-session-config.js';

/** The wire body that stores a chat session's settings and times (insert, or a full update). */
export function chatSessionToStored(
  chatSession: ChatSessionSettings & { created_at: number; updated_at: number },
): Record<string, unknown> {
  const opt = (k: string, v: unknown, wrap: (x: never) => unknown = (x) => x) =>
    v === null || v === undefined ? {} : { [k]: wrap(v as never) };
  return {
    llm_provider: text(chatSession.llm_provider),
    ...opt('llm_model', chatSession.llm_model, text),
    collections: { type: 'Array', value: chatSession.collections },
    ...opt('system_prompt', chatSession.system_prompt, text),
    ...opt('agent_id', chatSession.agent_id, text),
    ...opt('max_context_messages', chatSession.max_context_messages),
    ...opt('max_tokens', chatSession.max_tokens),
    ...opt('temperature', chatSession.temperature, (x: number) => ({ type: 'Float', value: x })),
    ...opt('tool_config', chatSession.tool_config, (x: object) => ({ type: 'Object', value: x })),
    ...opt('title', chatSession.title, text),
    ...opt('memory', chatSession.memory, (x: unknown) =>
      Array.isArray(x) ? { type: 'Array', value: x } : isPlainObject(x) ? { type: 'Object', value: x } : x,
    ),
    ...opt('parent_id', chatSession.parent_id, text),
    ...opt('branch_point_idx', chatSession.branch_point_idx),
    created_at: dateTime(chatSession.created_at),
    updated_at: dateTime(chatSession.updated_at),
  };
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function collectionsOf(value: unknown): CollectionConfig[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((c): c is CollectionConfig => isPlainObject(c) && typeof c.collection_name === 'string')
    .map((c) => ({ ...c, fields: Array.isArray(c.fields) ? c.fields : [] }));
}

export function chatSessionFromStored(fields: Fields): ChatSession {
  const raw = (name: string) => (fields[name] === undefined ? undefined : bareValue(fields[name]!));
  const tool = raw('tool_config');
  return {
    id: String(fields.id),
    llm_provider: stringOf(fields.llm_provider) ?? '',
    llm_model: stringOf(fields.llm_model) ?? null,
    collections: collectionsOf(raw('collections')),
    system_prompt: stringOf(fields.system_prompt) ?? null,
    agent_id: stringOf(fields.agent_id) ?? null,
    max_context_messages: num(raw('max_context_messages')),
    max_tokens: num(raw('max_tokens')),
    temperature: num(raw('temperature')),
    tool_config: isPlainObject(tool) ? tool : null,
    title: stringOf(fields.title) ?? null,
    memory: raw('memory') ?? null,
    parent_id: stringOf(fields.parent_id) ?? null,
    branch_point_idx: num(raw('branch_point_idx')),
    created_at: millisOf(fields.created_at),
    updated_at: millisOf(fields.updated_at),
  };
}
