/**
 * Chat tools over HTTP (protocol.md 2.12): `GET /api/chat/tools` lists the
 * server tools (lib/chat/tools/server-tools.ts) as a bare array of
 * `{name, description, parameters}`; `POST /api/chat/tools/execute` runs one,
 * `{tool, params, chat_id?}` -> `{success, result?, error?}`. A tool runs on
 * the caller's session and checks the caller's collection permissions.
 * Without `chat_id` only read tools run; with it, the chat session's tool_config
 * decides (allow_write_operations, allowed_tools, allowed_collections).
 */
import { InvalidInput } from '../../../errors.js';
import {
  CHAT_SESSIONS_COLLECTION,
  executeServerTool,
  resolveToolConfig,
  SERVER_TOOLS,
  type ToolEnv,
} from '../../../chat/index.js';
import { isPlainObject, rejectUnknownMembers } from '../../../engine/index.js';
import { defineProcedure, type RawInput } from '../procedure.js';
import { bodyObject } from '../input.js';
import { checkCollectionAccess } from '../../auth/permissions.js';
import type { Context } from '../context.js';
import { Anything, Type } from '../shapes.js';

/**
 * What a turn or an execute call runs tools with: the caller's session, the collections it may see, its permissions.
 */
export function toolEnv(ctx: Context): ToolEnv {
  const principal = ctx.principal;
  return {
    context: {
      session: ctx.session,
      collections: () => ctx.collections.list(true),
      checkAccess: (collection, mode) => {
        if (principal) checkCollectionAccess(principal, collection, mode);
      },
    },
    clientTimeoutMs: ctx.config.settings().client_tool_timeout_secs * 1000,
  };
}

export const chatToolsList = defineProcedure({
  name: 'chat.tools.list',
  kind: 'query',
  access: 'user',
  schema: {
    summary: 'The server tools a chat may call',
    response: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), parameters: Type.Object({}) })),
  },
  input: () => undefined,
  handler: () => Object.values(SERVER_TOOLS).map((t) => t.spec),
});

interface ExecuteInput {
  readonly tool: string;
  readonly params: Record<string, unknown>;
  readonly chatId?: string;
}

function executeInput(raw: RawInput): ExecuteInput {
  const body = bodyObject(raw);
  rejectUnknownMembers(body, ['tool', 'params', 'chat_id']);
  if (typeof body.tool !== 'string' || body.tool === '') throw new InvalidInput("'tool' is required: a tool name");
  const params = body.params ?? {};
  if (!isPlainObject(params)) throw new InvalidInput("'params' must be an object");
  if (body.chat_id !== undefined && body.chat_id !== null && (typeof body.chat_id !== 'string' || body.chat_id === ''))
    throw new InvalidInput("'chat_id' must be a chat id");
  return { tool: body.tool, params, ...(typeof body.chat_id === 'string' ? { chatId: body.chat_id } : {}) };
}

export const chatToolsExecute = defineProcedure({
  name: 'chat.tools.execute',
  kind: 'query',
  access: 'user',
  schema: {
    summary: 'Run a server tool',
    description: "Without chat_id only read tools run; with it, the chat session's tool_config decides.",
    body: Type.Object(
      {
        tool: Type.String({ minLength: 1 }),
        params: Type.Optional(Type.Union([Type.Object({}), Type.Null()])),
        chat_id: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
      },
      { additionalProperties: false },
    ),
    response: Type.Object({
      success: Type.Boolean(),
      result: Type.Optional(Anything),
      error: Type.Optional(Type.String()),
    }),
  },
  input: executeInput,
  // The chat session is read only when a chat_id names one; the tools check their own collections.
  scope: (input) => ({ collections: input.chatId ? [{ name: CHAT_SESSIONS_COLLECTION, mode: 'read' as const }] : [] }),
  handler: async (input, ctx) => {
    const env = toolEnv(ctx);
    const chatSessionToolConfig = input.chatId
      ? ctx.chat.chatSessions.chatSession(ctx.session, input.chatId).tool_config
      : null;
    const config = resolveToolConfig(chatSessionToolConfig, { clientTools: [], excludeTools: [] });
    if (input.chatId && config.allowedTools && !config.allowedTools.includes(input.tool)) {
      return { success: false, error: `Tool '${input.tool}' is not allowed in this chat` };
    }
    const outcome = await executeServerTool(input.tool, input.params, {
      ...env.context,
      allowWrite: input.chatId !== undefined && config.allowWrite,
      ...(config.allowedCollections ? { allowedCollections: config.allowedCollections } : {}),
    });
    return outcome.success
      ? { success: true, result: outcome.result ?? null }
      : { success: false, error: outcome.error };
  },
});
