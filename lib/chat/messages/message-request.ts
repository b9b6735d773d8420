/**
 * Request bodies of the message routes (protocol.md 2.12): ChatMessageRequest,
 * the message edit, the forgotten toggle, compaction, merge and tool
 * results. Strict: unknown members and wrong types are InvalidInput.
 *
 * Tool members of a ChatMessageRequest (`client_tools`, `exclude_tools`,
 * `confirm_tools`, `max_iterations`, `tool_config`) are parsed by
 * tools/tool-config.ts.
 */
import { InvalidInput } from '../../errors.js';
import { isPlainObject, rejectUnknownMembers } from '../../engine/index.js';
import { parseMessageTools, type MessageTools } from '../tools/tool-config.js';
import { parseMergeStrategy, type MergeStrategy } from '../chat-sessions/merge-strategies.js';
import { optionalBool, optionalInt, optionalText } from '../chat-sessions/chat-session-config.js';

export interface MessageRequest {
  readonly message: string;
  readonly bypassRipple: boolean;
  readonly forceSummarize: boolean;
  readonly model?: string;
  /** Tools asked for by this message (empty when it asks for none). */
  readonly tools?: MessageTools;
}

const MESSAGE_MEMBERS = [
  'message',
  'bypass_ripple',
  'force_summarize',
  'max_iterations',
  'tool_config',
  'llm_model',
  'client_tools',
  'confirm_tools',
  'exclude_tools',
  'attachments',
] as const;
const MAX_TOOLS = 128;

function objectList(body: Record<string, unknown>, name: string, required: readonly string[]): void {
  const list = body[name];
  if (list === undefined || list === null) return;
  if (!Array.isArray(list) || list.length > MAX_TOOLS)
    throw new InvalidInput(`'${name}' must be an array of at most ${MAX_TOOLS} entries`);
  list.forEach((entry, index) => {
    if (!isPlainObject(entry)) throw new InvalidInput(`${name}[${index}] must be an object`);
    for (const member of required) {
      if (typeof entry[member] !== 'string') throw new InvalidInput(`${name}[${index}].${member} must be a string`);
    }
  });
}

export function parseMessageRequest(body: Record<string, unknown>): MessageRequest {
  rejectUnknownMembers(body, MESSAGE_MEMBERS);
  const message = body.message;
  if (typeof message !== 'string' || message.trim() === '')
    throw new InvalidInput("'message' is required: a non-empty string");
  const tools = parseMessageTools(body);
  objectList(body, 'attachments', ['mime_type', 'data']);
  const model = optionalText(body, 'llm_model');
  return {
    message,
    bypassRipple: optionalBool(body, 'bypass_ripple'),
    forceSummarize: optionalBool(body, 'force_summarize'),
    ...(model ? { model } : {}),
    tools,
  };
}

export function parseContentEdit(body: Record<string, unknown>): string {
  rejectUnknownMembers(body, ['content', 'bypass_ripple']);
  if (typeof body.content !== 'string') throw new InvalidInput("'content' is required: a string");
  return body.content;
}

export function parseForgotten(body: Record<string, unknown>): boolean {
  rejectUnknownMembers(body, ['forgotten']);
  if (typeof body.forgotten !== 'boolean') throw new InvalidInput("'forgotten' is required: true or false");
  return body.forgotten;
}

/** `{keep_recent?}`; undefined means the chat session's default. */
export function parseCompact(body: Record<string, unknown>): number | undefined {
  rejectUnknownMembers(body, ['keep_recent']);
  return optionalInt(body, 'keep_recent', 0, 1_000_000) ?? undefined;
}

export interface MergeRequest {
  readonly sources: readonly string[];
  readonly target?: string;
  readonly strategy: MergeStrategy;
  readonly provider?: string;
  readonly model?: string;
  readonly bypassRipple: boolean;
}

const MAX_MERGE_SOURCES = 100;

/**
 * Both spellings: the clients' `source_chat_ids`/`target_chat_id`/`merge_strategy`, the contract's
 * `session_ids`/`strategy`.
 */
export function parseMerge(body: Record<string, unknown>): MergeRequest {
  rejectUnknownMembers(body, [
    'source_chat_ids',
    'session_ids',
    'target_chat_id',
    'merge_strategy',
    'strategy',
    'llm_provider',
    'llm_model',
    'bypass_ripple',
  ]);
  const one = (spelling: string, other: string) => {
    if (body[spelling] !== undefined && body[other] !== undefined)
      throw new InvalidInput(`Give '${spelling}' or '${other}', not both`);
    return body[spelling] ?? body[other];
  };
  const sources = one('source_chat_ids', 'session_ids');
  if (
    !Array.isArray(sources) ||
    sources.length === 0 ||
    sources.length > MAX_MERGE_SOURCES ||
    !sources.every((s) => typeof s === 'string' && s !== '')
  ) {
    throw new InvalidInput(
      `'source_chat_ids' (or 'session_ids') must be an array of 1 to ${MAX_MERGE_SOURCES} chat ids`,
    );
  }
  const strategy = one('merge_strategy', 'strategy');
  const target = optionalText(body, 'target_chat_id');
  const provider = optionalText(body, 'llm_provider');
  const model = optionalText(body, 'llm_model');
  return {
    sources: [...new Set(sources as string[])],
    strategy: strategy === undefined ? 'Chronological' : parseMergeStrategy(strategy),
    ...(target ? { target } : {}),
    ...(provider ? { provider } : {}),
    ...(model ? { model } : {}),
    bypassRipple: optionalBool(body, 'bypass_ripple'),
  };
}

export type ToolResult =
  | {
      readonly kind: 'result';
      readonly callId: string;
      readonly success: boolean;
      readonly result?: unknown;
      readonly error?: string;
    }
  | { readonly kind: 'keepalive'; readonly callId: string };

export function parseToolResult(body: Record<string, unknown>): ToolResult {
  rejectUnknownMembers(body, ['call_id', 'success', 'result', 'error', 'keepalive']);
  if (typeof body.call_id !== 'string' || body.call_id === '')
    throw new InvalidInput("'call_id' is required: a string");
  if (body.keepalive !== undefined && body.keepalive !== null) {
    if (body.keepalive !== true) throw new InvalidInput("'keepalive' must be true when given");
    if (body.success !== undefined || body.result !== undefined || body.error !== undefined) {
      throw new InvalidInput('A keep-alive carries only call_id and keepalive');
    }
    return { kind: 'keepalive', callId: body.call_id };
  }
  if (typeof body.success !== 'boolean') throw new InvalidInput("'success' is required: true or false");
  const error = optionalText(body, 'error');
  return {
    kind: 'result',
    callId: body.call_id,
    success: body.success,
    ...(body.result !== undefined ? { result: body.result } : {}),
    ...(error !== null ? { error } : {}),
  };
}
