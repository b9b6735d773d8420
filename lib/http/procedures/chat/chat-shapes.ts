/**
 * Wire shapes of the chat routes as JSON Schema, for the procedures'
 * `schema` members: session bodies, message requests, the answer of a turn,
 * sessions and messages as listed, provider statuses. The parsers of
 * lib/chat check the bodies; these describe what they accept.
 */
import { Anything, nullable, Type } from '../shapes.js';

const text = Type.Optional(nullable(Type.String()));
const int = Type.Optional(nullable(Type.Integer()));
const num = Type.Optional(nullable(Type.Number()));

const SearchedCollection = Type.Object(
  {
    collection_name: Type.String(),
    fields: Type.Optional(
      Type.Array(Type.Union([Type.String(), Type.Object({ field_name: Type.String() })]), {
        description: 'Names, or {field_name, search_options: {weight, language, type}}; none: every text field.',
      }),
    ),
    search_options: Type.Optional(Type.Object({}, { description: 'language, fuzzy_match, min_score, limit...' })),
  },
  { additionalProperties: false },
);

const ToolConfig = Type.Optional(
  nullable(
    Type.Object({}, { description: '{enabled, allowed_tools, allowed_collections, allow_write_operations, ...}' }),
  ),
);

const SESSION_MEMBERS = {
  collections: Type.Optional(nullable(Type.Array(SearchedCollection))),
  llm_model: text,
  system_prompt: text,
  agent_id: text,
  max_context_messages: int,
  max_tokens: int,
  temperature: num,
  tool_config: ToolConfig,
  title: text,
  memory: Type.Optional(Anything),
  bypass_ripple: Type.Optional(Anything),
};

/** POST /api/chat and /api/chat/branch. */
export const SessionCreate = Type.Object(
  {
    ...SESSION_MEMBERS,
    llm_provider: text,
    parent_id: Type.Optional(nullable(Type.String({ description: 'Branch from this session.' }))),
    branch_point_idx: Type.Optional(nullable(Type.Integer({ description: 'Copy messages 0..this one.' }))),
  },
  { additionalProperties: false },
);

/** PUT /api/chat/{chatId}. */
export const SessionUpdate = Type.Object(SESSION_MEMBERS, { additionalProperties: false });

const TokenUsage = Type.Object(
  { prompt_tokens: Type.Integer(), completion_tokens: Type.Integer(), total_tokens: Type.Integer() },
  { title: 'TokenUsage' },
);

const Snippet = Type.Object(
  { collection: Type.String(), record: Type.Object({}), score: Type.Number() },
  { title: 'ContextSnippet' },
);

/** What a turn answers (and a create, with nothing said yet). */
export const TurnAnswer = Type.Object(
  {
    chat_id: Type.String(),
    message_id: Type.String({ description: 'The reply ("" for a new session).' }),
    responses: Type.Array(Type.String()),
    context_snippets: Type.Array(Snippet),
    execution_time_ms: Type.Number(),
    token_usage: Type.Optional(TokenUsage),
    tool_call_history: Type.Optional(Type.Array(Type.Object({}))),
  },
  { title: 'ChatTurn' },
);

const Session = Type.Object(
  {
    chat_id: Type.String(),
    id: Type.String(),
    created_at: Type.String(),
    updated_at: Type.String(),
    llm_provider: Type.String(),
    llm_model: Type.String(),
    collections: Type.Array(Type.Object({})),
    title: nullable(Type.String()),
    message_count: Type.Integer(),
  },
  { title: 'ChatSession', description: 'A chat session, always bare (not typed).' },
);

export const SessionAnswer = Type.Object({ session: Session, message_count: Type.Integer() });

export const SessionList = Type.Object({
  sessions: Type.Array(Session),
  total: Type.Integer(),
  returned: Type.Integer(),
});

/** A stored message: a record (typed or bare per use_typed_values). */
export const Message = Type.Object(
  { id: Type.String() },
  {
    title: 'ChatMessage',
    description:
      'A record: id, chat_id, role, content, created_at, updated_at, context_snippets, token_usage, forgotten; ' +
      'on replies llm_provider and llm_model. Typed or bare per use_typed_values.',
  },
);

export const MessagePage = Type.Object({
  messages: Type.Array(Message),
  total: Type.Integer(),
  returned: Type.Optional(Type.Integer()),
  skip: Type.Optional(Type.Integer()),
  limit: Type.Optional(nullable(Type.Integer())),
});

/** GET /api/chat and its messages: the page. */
export const ListQuery = {
  limit: Type.String({ description: 'At most this many.' }),
  skip: Type.String({ description: 'Skip this many first.' }),
  sort: Type.String({ description: 'asc or desc (by creation).' }),
};

const Tools = (description: string) =>
  Type.Optional(nullable(Type.Array(Type.Object({ name: Type.String() }), { description })));

/** POST /api/chat/{chatId}/messages (and its stream). */
export const MessageRequest = Type.Object(
  {
    message: Type.String({ minLength: 1 }),
    llm_model: text,
    tool_config: ToolConfig,
    client_tools: Tools('Tools the client runs: {name, description, parameters}.'),
    confirm_tools: Type.Optional(nullable(Type.Array(Type.String(), { description: 'Server tools to confirm.' }))),
    exclude_tools: Type.Optional(nullable(Type.Array(Type.String()))),
    max_iterations: int,
    force_summarize: Type.Optional(nullable(Type.Boolean())),
    attachments: Type.Optional(nullable(Type.Array(Type.Object({ mime_type: Type.String(), data: Type.String() })))),
    bypass_ripple: Type.Optional(Anything),
  },
  { additionalProperties: false, title: 'ChatMessageRequest' },
);

export const MergeRequest = Type.Object(
  {
    source_chat_ids: Type.Optional(Type.Array(Type.String(), { minItems: 1 })),
    session_ids: Type.Optional(Type.Array(Type.String(), { minItems: 1, description: 'source_chat_ids, too.' })),
    target_chat_id: text,
    merge_strategy: Type.Optional(Type.Enum(['Chronological', 'Interleaved', 'LatestOnly', 'Summarized'])),
    strategy: Type.Optional(Type.String({ description: 'merge_strategy, too.' })),
    llm_provider: text,
    llm_model: text,
    bypass_ripple: Type.Optional(Anything),
  },
  { additionalProperties: false },
);

export const ToolResultBody = Type.Object(
  {
    call_id: Type.String(),
    success: Type.Optional(Type.Boolean()),
    result: Type.Optional(Anything),
    error: text,
    keepalive: Type.Optional(nullable(Type.Literal(true, { description: 'Restart the timeout only.' }))),
  },
  { additionalProperties: false },
);

/** POST /api/chat/complete (and its stream). */
export const CompleteRequest = Type.Object(
  {
    message: Type.String({ minLength: 1 }),
    system_prompt: text,
    provider: text,
    model: text,
    max_tokens: Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: 1_000_000 }))),
    temperature: Type.Optional(nullable(Type.Number({ minimum: 0, maximum: 2 }))),
    bypass_ripple: Type.Optional(Anything),
  },
  { additionalProperties: false },
);

export const Completion = Type.Object({
  content: Type.String(),
  provider: Type.String(),
  model: Type.String(),
  token_usage: TokenUsage,
});

export const ProviderStatus = Type.Object(
  {
    status: Type.String({ description: 'ok, not_configured, auth_failed, billing, rate_limited, unreachable...' }),
    verified: Type.Boolean(),
    http_status: Type.Optional(Type.Integer()),
    message: Type.Optional(Type.String()),
    model_count: Type.Optional(Type.Integer()),
  },
  { title: 'ProviderStatus' },
);

/** An event of a streamed turn (`data:` lines). */
export const StreamedTurnEvent = Type.Union(
  [
    Type.Object({ token: Type.String() }, { description: 'A piece of the reply.' }),
    Type.Object(
      { event: Type.Enum(['tool_call', 'tool_result', '__client_tool_call']), call_id: Type.String() },
      { description: 'A tool called, its result, or a client tool to run (answer with POST .../tool-result).' },
    ),
    Type.Object(
      {
        content: Type.String(),
        message_id: Type.String(),
        chat_id: Type.String(),
        execution_time_ms: Type.Number(),
        token_usage: TokenUsage,
        context_snippets: Type.Array(Snippet),
      },
      { description: 'The end: the exchange is stored.' },
    ),
  ],
  { title: 'ChatStreamEvent' },
);

/** An event of a streamed completion (`data:` lines). */
export const CompletionEvent = Type.Union([
  Type.Object({ token: Type.String() }),
  Type.Object({
    content: Type.String(),
    done: Type.Literal(true),
    provider: Type.String(),
    model: Type.String(),
    token_usage: TokenUsage,
  }),
]);
