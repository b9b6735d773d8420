/**
 * Reads and writes chat sessions and messages through the engine's statement
 * interface (a `Session`), so every change is an ordinary durable,
 * replicated record write. A chat session's messages are found by their
 * `chat_id`; their order is their creation time (`Stamps` keeps those
 * strictly increasing in this process, so two messages written in the same
 * millisecond still sort in the order they were written).
 */
import { NotFound } from '../../errors.js';
import { parseFilter, type Fields, type Query, type Session } from '../../engine/index.js';
import {
  byConversationOrder,
  messageFromStored,
  messageToStored,
  type ChatMessageRecord,
  type NewMessage,
} from '../messages/message-record.js';
import { CHAT_MESSAGES_COLLECTION, CHAT_SESSIONS_COLLECTION } from './names.js';
import { chatSessionFromStored, chatSessionToStored } from './chat-session-record.js';
import type { ChatSession, ChatSessionSettings } from './chat-session-config.js';

const ALL: Query = Object.freeze({ sort: [], skip: 0, bypassCache: false, bypassRipple: false });

/** Creation times that never repeat or go back, from a clock that may. */
export class Stamps {
  private last = 0;
  constructor(private readonly now: () => number) {}
  next(): number {
    this.last = Math.max(this.now(), this.last + 1);
    return this.last;
  }
}

function messagesQuery(chatId: string): Query {
  return {
    ...ALL,
    filter: parseFilter({ type: 'Condition', content: { field: 'chat_id', operator: 'Eq', value: chatId } }),
  };
}

export class ChatStore {
  private indexed = false;

  /**
   * `indexMessages` makes sure `chat_messages_{db}` has a query index on
   * `chat_id` (so a chat session's messages are not a full scan).
   */
  constructor(
    private readonly stamps: Stamps,
    private readonly indexMessages: () => Promise<void> = async () => {},
  ) {}

  stamp(): number {
    return this.stamps.next();
  }

  /** 404 "Chat session '<id>' not found". */
  chatSession(session: Session, chatId: string): ChatSession {
    try {
      return chatSessionFromStored(session.findById(CHAT_SESSIONS_COLLECTION, chatId));
    } catch (err) {
      if (err instanceof NotFound) throw new NotFound(`Chat session '${chatId}' not found`);
      throw err;
    }
  }

  async chatSessions(session: Session): Promise<ChatSession[]> {
    return (await session.find(CHAT_SESSIONS_COLLECTION, ALL)).map(chatSessionFromStored);
  }

  async createChatSession(
    session: Session,
    settings: ChatSessionSettings,
    bypassRipple: boolean,
  ): Promise<ChatSession> {
    const now = this.stamp();
    const stored = chatSessionToStored({ ...settings, created_at: now, updated_at: now });
    const id = await session.insert(CHAT_SESSIONS_COLLECTION, stored, bypassRipple);
    return { ...settings, id, created_at: now, updated_at: now };
  }

  /** Writes every setting (a cleared one as null) and a new `updated_at`. */
  async replaceChatSession(session: Session, chatSession: ChatSession, bypassRipple: boolean): Promise<ChatSession> {
    const next = { ...chatSession, updated_at: this.stamp() };
    const body = chatSessionToStored(next);
    for (const [name, value] of Object.entries(next)) if (value === null && !(name in body)) body[name] = null;
    await session.update(CHAT_SESSIONS_COLLECTION, chatSession.id, body, bypassRipple);
    return next;
  }

  async touchChatSession(session: Session, chatId: string, bypassRipple: boolean): Promise<void> {
    const updatedAt = { type: 'DateTime', value: new Date(this.stamp()).toISOString() };
    await session.update(CHAT_SESSIONS_COLLECTION, chatId, { updated_at: updatedAt }, bypassRipple);
  }

  /** Deletes the chat session and its messages; resolves to how many messages went. */
  async deleteChatSession(session: Session, chatId: string): Promise<number> {
    this.chatSession(session, chatId);
    const ids = (await this.messages(session, chatId)).map((message) => message.id);
    if (ids.length > 0) {
      expectAll(
        await session.writeMany(
          CHAT_MESSAGES_COLLECTION,
          ids.map((id) => ({ kind: 'delete', id })),
        ),
        'delete',
      );
    }
    await session.delete(CHAT_SESSIONS_COLLECTION, chatId);
    return ids.length;
  }

  /** The chat session's messages in conversation order. */
  async messages(session: Session, chatId: string): Promise<ChatMessageRecord[]> {
    return (await session.find(CHAT_MESSAGES_COLLECTION, messagesQuery(chatId)))
      .map(messageFromStored)
      .sort(byConversationOrder);
  }

  /** The chat session's message records as stored, in conversation order. */
  async messageRecords(session: Session, chatId: string): Promise<Fields[]> {
    const rows = (await session.find(CHAT_MESSAGES_COLLECTION, messagesQuery(chatId))).map((fields) => ({
      fields,
      message: messageFromStored(fields),
    }));
    return rows.sort((a, b) => byConversationOrder(a.message, b.message)).map((row) => row.fields);
  }

  /** Message counts of every chat session (one pass over the messages). */
  async messageCounts(session: Session): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const message of (await session.find(CHAT_MESSAGES_COLLECTION, ALL)).map(messageFromStored)) {
      counts.set(message.chat_id, (counts.get(message.chat_id) ?? 0) + 1);
    }
    return counts;
  }

  /** 404 unless the message exists and belongs to `chatId`. */
  message(session: Session, chatId: string, messageId: string): ChatMessageRecord {
    let message: ChatMessageRecord | undefined;
    try {
      message = messageFromStored(session.findById(CHAT_MESSAGES_COLLECTION, messageId));
    } catch (err) {
      if (!(err instanceof NotFound)) throw err;
    }
    if (!message || message.chat_id !== chatId)
      throw new NotFound(`Message '${messageId}' not found in chat session '${chatId}'`);
    return message;
  }

  /** Inserts messages in one batch, in order; resolves to them with their ids. */
  async addMessages(
    session: Session,
    messages: readonly NewMessage[],
    bypassRipple: boolean,
  ): Promise<ChatMessageRecord[]> {
    if (messages.length === 0) return [];
    const writes = messages.map((message) => ({
      kind: 'insert' as const,
      body: messageToStored(message),
      bypassRipple,
    }));
    const result = await session.writeMany(CHAT_MESSAGES_COLLECTION, writes);
    expectAll(result, 'insert');
    if (!this.indexed) {
      // After the first insert: the collection exists from then on.
      await this.indexMessages();
      this.indexed = true;
    }
    return messages.map((message, index) => ({ ...message, id: result.successful[index]! }));
  }

  async updateMessage(
    session: Session,
    messageId: string,
    patch: Record<string, unknown>,
    bypassRipple = false,
  ): Promise<ChatMessageRecord> {
    const body = { ...patch, updated_at: { type: 'DateTime', value: new Date(this.stamp()).toISOString() } };
    return messageFromStored(await session.update(CHAT_MESSAGES_COLLECTION, messageId, body, bypassRipple));
  }

  async forget(session: Session, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const at = { type: 'DateTime', value: new Date(this.stamp()).toISOString() };
    const writes = ids.map((id) => ({ kind: 'update' as const, id, body: { forgotten: true, updated_at: at } }));
    expectAll(await session.writeMany(CHAT_MESSAGES_COLLECTION, writes), 'update');
  }

  async deleteMessage(session: Session, messageId: string): Promise<void> {
    await session.delete(CHAT_MESSAGES_COLLECTION, messageId);
  }

  /** The raw stored record of a message (for answers that return the record). */
  messageFields(session: Session, messageId: string) {
    return session.findById(CHAT_MESSAGES_COLLECTION, messageId);
  }
}

/** Our own writes to our own collections failing one by one is a bug (or a record edited under us): say which. */
function expectAll(result: { failed: ReadonlyArray<{ error: string }> }, what: string): void {
  if (result.failed.length > 0)
    throw new Error(`chat storage: ${result.failed.length} message ${what}(s) failed: ${result.failed[0]!.error}`);
}
