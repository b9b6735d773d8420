/**
 * Chat sessions and their messages (protocol.md 2.12): thin adapters over
 * lib/chat's ChatService. The gate checks the chat storage collections
 * (`chat_configurations_{db}`, `chat_messages_{db}`) like any collection;
 * creating or reconfiguring a session also checks read access to the
 * collections it will search, and a message re-checks them (a key may have
 * lost access since the session was made). Message records are rendered
 * typed or bare per `use_typed_values`; session items are bare.
 */
import { InvalidInput, NotFound } from '../../../errors.js';
import {
  CHAT_MESSAGES_COLLECTION,
  CHAT_SESSIONS_COLLECTION,
  parseCompact,
  parseContentEdit,
  parseForgotten,
  parseMerge,
  parseMessageRequest,
  parseToolResult,
} from '../../../chat/index.js';
import { isPlainObject, recordToWire, type Fields } from '../../../engine/index.js';
import { defineProcedure, type RawInput, type Scope } from '../procedure.js';
import { bodyObject, param, queryString } from '../input.js';
import { checkCollectionAccess } from '../../auth/permissions.js';
import type { Context } from '../context.js';
import { toolEnv } from './tools.js';
import { Type } from '../shapes.js';
import {
  ListQuery,
  MergeRequest,
  Message,
  MessagePage,
  MessageRequest,
  SessionAnswer,
  SessionCreate,
  SessionList,
  SessionUpdate,
  ToolResultBody,
  TurnAnswer,
} from './chat-shapes.js';

type Mode = 'read' | 'write';
export const storage = (sessions: Mode, messages: Mode, searched: readonly string[] = []): Scope => ({
  collections: [
    { name: CHAT_SESSIONS_COLLECTION, mode: sessions },
    { name: CHAT_MESSAGES_COLLECTION, mode: messages },
    ...searched.map((name) => ({ name, mode: 'read' as const })),
  ],
});

/** An empty body (bodiless POSTs) is `{}`. */
export const body = (raw: RawInput) => (raw.body === undefined || raw.body === null ? {} : bodyObject(raw));
export const chatId = (raw: RawInput) => param(raw, 'chatId');

/**
 * Names the protocol reserves under /api/chat/ (gotcha 11: they win over
 * {chatId}). Chat ids are generated, so none is ever one of these; until
 * every reserved route is served, such a path answers as the router does
 * for a path it does not know, never as a missing session.
 */
const RESERVED_UNDER_CHAT: ReadonlySet<string> = new Set([
  'goals',
  'goal-templates',
  'tasks',
  'agents',
  'branch',
  'merge',
  'complete',
  'tools',
]);

function sessionPathId(raw: RawInput, method: string): string {
  const id = chatId(raw);
  if (RESERVED_UNDER_CHAT.has(id)) throw new NotFound(`No route for ${method} /api/chat/${id}`);
  return id;
}
const msgId = (raw: RawInput) => param(raw, 'msgId');

/** The collections a create/branch/update body names for retrieval (validated by the service). */
function searchedIn(request: Record<string, unknown>): string[] {
  if (!Array.isArray(request.collections)) return [];
  return request.collections.flatMap((searched) =>
    isPlainObject(searched) && typeof searched.collection_name === 'string' ? [searched.collection_name] : [],
  );
}

/** A message searches its chat session's collections: the caller must still be allowed to read them. */
export function checkRetrievalAccess(ctx: Context, id: string): void {
  if (!ctx.principal) return;
  for (const config of ctx.chat.chatSessions.chatSession(ctx.session, id).collections) {
    checkCollectionAccess(ctx.principal, config.collection_name, 'read');
  }
}

function listOptions(raw: RawInput): { limit?: number; skip?: number; sort?: 'asc' | 'desc' } {
  const int = (name: string) => {
    const given = queryString(raw, name);
    if (given === undefined || given === '') return undefined;
    if (!/^\d{1,9}$/.test(given)) throw new InvalidInput(`Query parameter '${name}' must be a non-negative integer`);
    return Number(given);
  };
  const sort = queryString(raw, 'sort');
  if (sort !== undefined && sort !== '' && sort !== 'asc' && sort !== 'desc')
    throw new InvalidInput("Query parameter 'sort' must be asc or desc");
  const limit = int('limit'),
    skip = int('skip');
  return {
    ...(limit !== undefined ? { limit } : {}),
    ...(skip !== undefined ? { skip } : {}),
    ...(sort ? { sort } : {}),
  };
}

const wire = (record: Fields, ctx: Context) => recordToWire(record, { typed: ctx.typed });

export const chatCreate = defineProcedure({
  name: 'chat.create',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Create a chat session',
    description: 'With parent_id it is a branch. The key needs read access to the collections it searches.',
    body: SessionCreate,
    response: TurnAnswer,
  },
  input: body,
  scope: (b) => storage('write', 'write', searchedIn(b)),
  handler: (b, ctx) => ctx.chat.chatSessions.create(ctx.session, b),
});

export const chatBranch = defineProcedure({
  name: 'chat.branch',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Branch a chat session',
    description: "Copies the parent's messages 0..branch_point_idx (all without it) and its settings.",
    body: SessionCreate,
    response: TurnAnswer,
  },
  input: body,
  scope: (b) => storage('write', 'write', searchedIn(b)),
  handler: (b, ctx) => ctx.chat.chatSessions.branch(ctx.session, b),
});

export const chatMerge = defineProcedure({
  name: 'chat.merge',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Merge chat sessions',
    description: 'Without a target a new session is made from the first source.',
    body: MergeRequest,
    response: SessionAnswer,
  },
  input: (raw) => parseMerge(body(raw)),
  scope: () => storage('write', 'write'),
  handler: (req, ctx) => ctx.chat.chatSessions.merge(ctx.session, req, ctx.signal),
});

export const chatList = defineProcedure({
  name: 'chat.list',
  kind: 'query',
  access: 'user',
  schema: { summary: 'List chat sessions', query: ListQuery, response: SessionList },
  input: listOptions,
  scope: () => storage('read', 'read'),
  handler: (opts, ctx) => ctx.chat.chatSessions.list(ctx.session, opts),
});

export const chatGet = defineProcedure({
  name: 'chat.get',
  kind: 'query',
  access: 'user',
  schema: { summary: 'A chat session', response: SessionAnswer },
  input: (raw) => sessionPathId(raw, 'GET'),
  scope: () => storage('read', 'read'),
  handler: (id, ctx) => ctx.chat.chatSessions.get(ctx.session, id),
});

export const chatUpdate = defineProcedure({
  name: 'chat.update',
  kind: 'mutation',
  access: 'user',
  schema: { summary: "Change a chat session's settings", body: SessionUpdate, response: SessionAnswer },
  input: (raw) => ({ id: sessionPathId(raw, 'PUT'), body: body(raw) }),
  scope: (input) => storage('write', 'read', searchedIn(input.body)),
  handler: (input, ctx) => ctx.chat.chatSessions.update(ctx.session, input.id, input.body),
});

export const chatDelete = defineProcedure({
  name: 'chat.delete',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Delete a chat session and its messages',
    response: Type.Object({
      status: Type.Literal('deleted'),
      chat_id: Type.String(),
      messages_deleted: Type.Integer(),
    }),
  },
  input: (raw) => sessionPathId(raw, 'DELETE'),
  scope: () => storage('write', 'write'),
  handler: (id, ctx) => ctx.chat.chatSessions.delete(ctx.session, id),
});

export const chatSend = defineProcedure({
  name: 'chat.send',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Send a message and get the reply',
    description:
      "Retrieval from the session's collections, tool rounds, then the stored exchange; nothing is " +
      'stored when the provider fails (its classified error is the answer).',
    body: MessageRequest,
    response: TurnAnswer,
  },
  input: (raw) => ({ id: chatId(raw), req: parseMessageRequest(body(raw)) }),
  scope: () => storage('write', 'write'),
  handler: (input, ctx) => {
    checkRetrievalAccess(ctx, input.id);
    return ctx.chat.messages.send(ctx.session, input.id, input.req, ctx.signal, toolEnv(ctx));
  },
});

export const chatMessagesList = defineProcedure({
  name: 'chat.messages.list',
  kind: 'query',
  access: 'user',
  schema: { summary: "A chat session's messages", query: ListQuery, response: MessagePage },
  input: (raw) => ({ id: chatId(raw), opts: listOptions(raw) }),
  scope: () => storage('read', 'read'),
  handler: async (input, ctx) => {
    const page = await ctx.chat.messages.list(ctx.session, input.id, input.opts);
    return { ...page, messages: page.messages.map((m) => wire(m, ctx)) };
  },
});

export const chatMessageGet = defineProcedure({
  name: 'chat.messages.get',
  kind: 'query',
  access: 'user',
  schema: { summary: 'One message', response: Message },
  input: (raw) => ({ id: chatId(raw), msg: msgId(raw) }),
  scope: () => storage('read', 'read'),
  handler: (input, ctx) => wire(ctx.chat.messages.get(ctx.session, input.id, input.msg), ctx),
});

export const chatMessageUpdate = defineProcedure({
  name: 'chat.messages.update',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: "Edit a message's content",
    body: Type.Object(
      { content: Type.String(), bypass_ripple: Type.Optional(Type.Unknown()) },
      { additionalProperties: false },
    ),
    response: Message,
  },
  input: (raw) => ({ id: chatId(raw), msg: msgId(raw), content: parseContentEdit(body(raw)) }),
  scope: () => storage('read', 'write'),
  handler: async (input, ctx) =>
    wire(await ctx.chat.messages.edit(ctx.session, input.id, input.msg, input.content), ctx),
});

export const chatMessageDelete = defineProcedure({
  name: 'chat.messages.delete',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Delete a message',
    response: Type.Object({ status: Type.Literal('deleted'), chat_id: Type.String(), message_id: Type.String() }),
  },
  input: (raw) => ({ id: chatId(raw), msg: msgId(raw) }),
  scope: () => storage('read', 'write'),
  handler: (input, ctx) => ctx.chat.messages.delete(ctx.session, input.id, input.msg),
});

export const chatMessageForgotten = defineProcedure({
  name: 'chat.messages.forgotten',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Forget a message, or take it back',
    description: 'A forgotten message stays stored but leaves the prompt.',
    body: Type.Object({ forgotten: Type.Boolean() }, { additionalProperties: false }),
    response: Message,
  },
  input: (raw) => ({ id: chatId(raw), msg: msgId(raw), forgotten: parseForgotten(body(raw)) }),
  scope: () => storage('read', 'write'),
  handler: async (input, ctx) =>
    wire(await ctx.chat.messages.setForgotten(ctx.session, input.id, input.msg, input.forgotten), ctx),
});

export const chatMessageRegenerate = defineProcedure({
  name: 'chat.messages.regenerate',
  kind: 'mutation',
  access: 'user',
  schema: { summary: 'Regenerate an assistant message', response: TurnAnswer },
  input: (raw) => ({ id: chatId(raw), msg: msgId(raw) }),
  scope: () => storage('write', 'write'),
  handler: (input, ctx) => {
    checkRetrievalAccess(ctx, input.id);
    return ctx.chat.messages.regenerate(ctx.session, input.id, input.msg, ctx.signal);
  },
});

export const chatCompact = defineProcedure({
  name: 'chat.compact',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Fold older messages into one summary',
    description: 'All but the last keep_recent live messages become one summary message; they are marked forgotten.',
    body: Type.Object(
      { keep_recent: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])) },
      { additionalProperties: false },
    ),
    response: Type.Object({
      folded: Type.Integer(),
      kept_recent: Type.Integer(),
      summary_chars: Type.Integer(),
      summary_message_id: Type.Union([Type.String(), Type.Null()]),
      already_compact: Type.Boolean(),
    }),
  },
  input: (raw) => ({ id: chatId(raw), keepRecent: parseCompact(body(raw)) }),
  scope: () => storage('read', 'write'),
  handler: (input, ctx) => ctx.chat.messages.compact(ctx.session, input.id, input.keepRecent, ctx.signal),
});

export const chatToolResult = defineProcedure({
  name: 'chat.toolResult',
  kind: 'query',
  access: 'user',
  schema: {
    summary: "A client tool's result, for a turn waiting on it",
    description: 'Answer a __client_tool_call event within its timeout_secs (keepalive: true restarts it).',
    body: ToolResultBody,
    response: Type.Object({
      status: Type.Literal('accepted'),
      chat_id: Type.String(),
      call_id: Type.String(),
      delivered: Type.Boolean({ description: 'Whether a turn was waiting for it.' }),
    }),
  },
  input: (raw) => ({ id: chatId(raw), result: parseToolResult(body(raw)) }),
  scope: () => storage('read', 'read'),
  handler: (input, ctx) => ctx.chat.messages.toolResult(ctx.session, input.id, input.result),
});
