/**
 * The configuration of a chat session (protocol.md 2.12
 * CreateChatSessionRequest, the PUT body) parsed from the wire, and the
 * chat session as the service knows it. Parsing is strict: unknown members and
 * wrong types are InvalidInput naming the member. Collection configs are
 * validated here (retrieval-plan.ts) but kept exactly as received, since
 * clients expect `fields` echoed back unchanged.
 */
import { InvalidInput } from '../../errors.js';
import { isPlainObject, rejectUnknownMembers, validateCollectionName } from '../../engine/index.js';
import { retrievalPlan, type CollectionConfig } from '../messages/retrieval-plan.js';

export type { CollectionConfig } from '../messages/retrieval-plan.js';

/** What a client may set on a chat session. Null means unset. */
export interface ChatSessionSettings {
  readonly llm_provider: string;
  readonly llm_model: string | null;
  readonly collections: readonly CollectionConfig[];
  readonly system_prompt: string | null;
  readonly agent_id: string | null;
  readonly max_context_messages: number | null;
  readonly max_tokens: number | null;
  readonly temperature: number | null;
  readonly tool_config: Readonly<Record<string, unknown>> | null;
  readonly title: string | null;
  readonly memory: unknown;
  readonly parent_id: string | null;
  readonly branch_point_idx: number | null;
}

export interface ChatSession extends ChatSessionSettings {
  readonly id: string;
  /** Milliseconds since the epoch. */
  readonly created_at: number;
  readonly updated_at: number;
}

export interface CreateChatSessionRequest {
  readonly settings: ChatSessionSettings;
  readonly bypassRipple: boolean;
}

const MAX_COLLECTIONS = 64;
const MAX_CONTEXT_MESSAGES = 100_000;

const CREATE_MEMBERS = [
  'collections',
  'llm_provider',
  'llm_model',
  'system_prompt',
  'agent_id',
  'bypass_ripple',
  'parent_id',
  'branch_point_idx',
  'max_context_messages',
  'max_tokens',
  'temperature',
  'tool_config',
  'title',
  'memory',
] as const;
const UPDATE_MEMBERS = [
  'system_prompt',
  'llm_model',
  'collections',
  'max_context_messages',
  'bypass_ripple',
  'title',
  'memory',
  'max_tokens',
  'temperature',
  'tool_config',
  'agent_id',
] as const;

const given = (v: unknown) => v !== undefined && v !== null;

export function optionalText(body: Record<string, unknown>, name: string): string | null {
  const value = body[name];
  if (!given(value)) return null;
  if (typeof value !== 'string') throw new InvalidInput(`'${name}' must be a string`);
  return value;
}

export function optionalInt(body: Record<string, unknown>, name: string, min: number, max: number): number | null {
  const value = body[name];
  if (!given(value)) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidInput(`'${name}' must be an integer between ${min} and ${max}`);
  }
  return value;
}

function optionalNumber(body: Record<string, unknown>, name: string, min: number, max: number): number | null {
  const value = body[name];
  if (!given(value)) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new InvalidInput(`'${name}' must be a number between ${min} and ${max}`);
  }
  return value;
}

export function optionalBool(body: Record<string, unknown>, name: string): boolean {
  const value = body[name];
  if (!given(value)) return false;
  if (typeof value !== 'boolean') throw new InvalidInput(`'${name}' must be true or false`);
  return value;
}

/** `collections`: an array of CollectionConfig, each validated (names, field entries, search options). */
export function parseCollections(raw: unknown): CollectionConfig[] {
  if (!given(raw)) return [];
  if (!Array.isArray(raw))
    throw new InvalidInput("'collections' must be an array of {collection_name, fields?, search_options?}");
  if (raw.length > MAX_COLLECTIONS) throw new InvalidInput(`'collections' may hold at most ${MAX_COLLECTIONS} entries`);
  return raw.map((entry, index) => {
    const where = `collections[${index}]`;
    if (!isPlainObject(entry))
      throw new InvalidInput(`${where} must be an object {collection_name, fields?, search_options?}`);
    rejectUnknownMembers(entry, ['collection_name', 'fields', 'search_options'], where);
    const name = validateCollectionName(entry.collection_name);
    const fields = given(entry.fields) ? entry.fields : [];
    if (!Array.isArray(fields)) throw new InvalidInput(`${where}.fields must be an array`);
    if (given(entry.search_options) && !isPlainObject(entry.search_options))
      throw new InvalidInput(`${where}.search_options must be an object`);
    const config: CollectionConfig = {
      collection_name: name,
      fields,
      ...(given(entry.search_options) ? { search_options: entry.search_options as Record<string, unknown> } : {}),
    };
    retrievalPlan(config, where);
    return config;
  });
}

function parseToolConfig(raw: unknown): Record<string, unknown> | null {
  if (!given(raw)) return null;
  if (!isPlainObject(raw)) throw new InvalidInput("'tool_config' must be an object {enabled, allowed_tools?, ...}");
  if (given(raw.enabled) && typeof raw.enabled !== 'boolean')
    throw new InvalidInput("'tool_config.enabled' must be true or false");
  return raw;
}

/** The members both create and update accept, where present in `body`. */
function parseCommon(body: Record<string, unknown>): Partial<Record<keyof ChatSessionSettings, unknown>> {
  const out: Partial<Record<keyof ChatSessionSettings, unknown>> = {};
  const set = (name: keyof ChatSessionSettings, parse: () => unknown) => {
    if (name in body) out[name] = parse();
  };
  set('llm_model', () => optionalText(body, 'llm_model'));
  set('collections', () => parseCollections(body.collections));
  set('system_prompt', () => optionalText(body, 'system_prompt'));
  set('agent_id', () => optionalText(body, 'agent_id'));
  set('max_context_messages', () => optionalInt(body, 'max_context_messages', 0, MAX_CONTEXT_MESSAGES));
  set('max_tokens', () => optionalInt(body, 'max_tokens', 1, 10_000_000));
  set('temperature', () => optionalNumber(body, 'temperature', 0, 10));
  set('tool_config', () => parseToolConfig(body.tool_config));
  set('title', () => optionalText(body, 'title'));
  set('memory', () => body.memory ?? null);
  return out;
}

/**
 * A CreateChatSessionRequest. `llm_provider` is required unless `requireProvider`
 * is false (a branch inherits its parent's); whether the provider is
 * configured is the provider directory's to say.
 */
export function parseCreateRequest(
  body: Record<string, unknown>,
  requireProvider = true,
): { create: CreateChatSessionRequest; given: ReadonlySet<string> } {
  rejectUnknownMembers(body, CREATE_MEMBERS);
  const provider = optionalText(body, 'llm_provider');
  if (requireProvider && !provider) throw new InvalidInput("'llm_provider' is required");
  const common = parseCommon(body);
  const settings: ChatSessionSettings = {
    llm_provider: provider ?? '',
    llm_model: (common.llm_model as string | null | undefined) ?? null,
    collections: (common.collections as CollectionConfig[] | undefined) ?? [],
    system_prompt: (common.system_prompt as string | null | undefined) ?? null,
    agent_id: (common.agent_id as string | null | undefined) ?? null,
    max_context_messages: (common.max_context_messages as number | null | undefined) ?? null,
    max_tokens: (common.max_tokens as number | null | undefined) ?? null,
    temperature: (common.temperature as number | null | undefined) ?? null,
    tool_config: (common.tool_config as Record<string, unknown> | null | undefined) ?? null,
    title: (common.title as string | null | undefined) ?? null,
    memory: common.memory ?? null,
    parent_id: optionalText(body, 'parent_id'),
    branch_point_idx: optionalInt(body, 'branch_point_idx', 0, Number.MAX_SAFE_INTEGER),
  };
  const present = new Set(Object.keys(body).filter((name) => given(body[name])));
  return { create: { settings, bypassRipple: optionalBool(body, 'bypass_ripple') }, given: present };
}

/** A PUT /api/chat/{id} body: the members present replace the chat session's (null clears an optional one). */
export function parseUpdateRequest(body: Record<string, unknown>): {
  patch: Partial<ChatSessionSettings>;
  bypassRipple: boolean;
} {
  rejectUnknownMembers(body, UPDATE_MEMBERS);
  const patch = parseCommon(body) as Partial<ChatSessionSettings>;
  if ('collections' in patch && patch.collections === undefined)
    throw new InvalidInput("'collections' must be an array");
  return { patch, bypassRipple: optionalBool(body, 'bypass_ripple') };
}
