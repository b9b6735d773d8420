/**
 * Reads and writes sessions and messages through the engine's statement
 * interface (a `Session`), so every change is an ordinary durable,
 * replicated record write. A session's messages are found by their
 * `chat_id`; their order is their creation time (`Stamps` keeps those
 * strictly increasing in this process, so two messages written in the same
 * millisecond still sort in the order they were written).
 */
import { NotFound } from '../../errors.js';
import { parseFilter, type Fields, type Query, type Session } from '../../engine/index.js';
import { byConversationOrder, messageFromStored, messageToStored, type ChatMessageRecord, type NewMessage } from '../messages/message-record.js';
import { CHAT_MESSAGES_COLLECTION, CHAT_SESSIONS_COLLECTION } from './names.js';
import { sessionFromStored, sessionToStored } from './chat-session-record.js';
import type { ChatSession, SessionSettings } from './chat-session-config.js';

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
  return { ...ALL, filter: parseFilter({ type: 'Condition', content: { field: 'chat_id', operator: 'Eq', value: chatId } }) };
}

export class ChatStore {
  private indexed = false;

  /** `indexMessages` makes sure `chat_messages_{db}` has a query index on `chat_id` (so a session's messages are not a full scan). */
  constructor(private readonly stamps: Stamps, private readonly indexMessages: () => Promise<void> = async () => {}) {}

  stamp(): number {
    return this.stamps.next();
  }

  /** 404 "Chat session '<id>' not found". */
  session(db: Session, chatId: string): ChatSession {
    try {
      return sessionFromStored(db.findById(CHAT_SESSIONS_COLLECTION, chatId));
    } catch (err) {
      if (err instanceof NotFound) throw new NotFound(`Chat session '${chatId}' not found`);
      throw err;
    }
  }

  async sessions(db: Session): Promise<ChatSession[]> {
    return (await db.find(CHAT_SESSIONS_COLLECTION, ALL)).map(sessionFromStored);
  }

  async createSession(db: Session, settings: SessionSettings, bypassRipple: boolean): Promise<ChatSession> {
    const now = this.stamp();
    const id = await db.insert(CHAT_SESSIONS_COLLECTION, sessionToStored({ ...settings, created_at: now, updated_at: now }), bypassRipple);
    return { ...settings, id, created_at: now, updated_at: now };
  }

  /** Writes every setting (a cleared one as null) and a new `updated_at`. */
  async replaceSession(db: Session, s: ChatSession, bypassRipple: boolean): Promise<ChatSession> {
    const next = { ...s, updated_at: this.stamp() };
    const body = sessionToStored(next);
    for (const [k, v] of Object.entries(next)) if (v === null && !(k in body)) body[k] = null;
    await db.update(CHAT_SESSIONS_COLLECTION, s.id, body, bypassRipple);
    return next;
  }

  async touchSession(db: Session, chatId: string, bypassRipple: boolean): Promise<void> {
    await db.update(CHAT_SESSIONS_COLLECTION, chatId, { updated_at: { type: 'DateTime', value: new Date(this.stamp()).toISOString() } }, bypassRipple);
  }

  /** Deletes the session and its messages; resolves to how many messages went. */
  async deleteSession(db: Session, chatId: string): Promise<number> {
    this.session(db, chatId);
    const ids = (await this.messages(db, chatId)).map((m) => m.id);
    if (ids.length > 0) expectAll(await db.writeMany(CHAT_MESSAGES_COLLECTION, ids.map((id) => ({ kind: 'delete', id }))), 'delete');
    await db.delete(CHAT_SESSIONS_COLLECTION, chatId);
    return ids.length;
  }

  /** The session's messages in conversation order. */
  async messages(db: Session, chatId: string): Promise<ChatMessageRecord[]> {
    return (await db.find(CHAT_MESSAGES_COLLECTION, messagesQuery(chatId))).map(messageFromStored).sort(byConversationOrder);
  }

  /** The session's message records as stored, in conversation order. */
  async messageRecords(db: Session, chatId: string): Promise<Fields[]> {
    const rows = (await db.find(CHAT_MESSAGES_COLLECTION, messagesQuery(chatId))).map((f) => ({ f, m: messageFromStored(f) }));
    return rows.sort((a, b) => byConversationOrder(a.m, b.m)).map((r) => r.f);
  }

  /** Message counts of every session (one pass over the messages). */
  async messageCounts(db: Session): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const m of (await db.find(CHAT_MESSAGES_COLLECTION, ALL)).map(messageFromStored)) counts.set(m.chat_id, (counts.get(m.chat_id) ?? 0) + 1);
    return counts;
  }

  /** 404 unless the message exists and belongs to `chatId`. */
  message(db: Session, chatId: string, messageId: string): ChatMessageRecord {
    let m: ChatMessageRecord | undefined;
    try {
      m = messageFromStored(db.findById(CHAT_MESSAGES_COLLECTION, messageId));
    } catch (err) {
      if (!(err instanceof NotFound)) throw err;
    }
    if (!m || m.chat_id !== chatId) throw new NotFound(`Message '${messageId}' not found in chat session '${chatId}'`);
    return m;
  }

  /** Inserts messages in one batch, in order; resolves to them with their ids. */
  async addMessages(db: Session, messages: readonly NewMessage[], bypassRipple: boolean): Promise<ChatMessageRecord[]> {
    if (messages.length === 0) return [];
    const result = await db.writeMany(CHAT_MESSAGES_COLLECTION, messages.map((m) => ({ kind: 'insert', body: messageToStored(m), bypassRipple })));
    expectAll(result, 'insert');
    if (!this.indexed) {
      // After the first insert: the collection exists from then on.
      await this.indexMessages();
      this.indexed = true;
    }
    return messages.map((m, i) => ({ ...m, id: result.successful[i]! }));
  }

  async updateMessage(db: Session, messageId: string, patch: Record<string, unknown>, bypassRipple = false): Promise<ChatMessageRecord> {
    const body = { ...patch, updated_at: { type: 'DateTime', value: new Date(this.stamp()).toISOString() } };
    return messageFromStored(await db.update(CHAT_MESSAGES_COLLECTION, messageId, body, bypassRipple));
  }

  async forget(db: Session, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const at = { type: 'DateTime', value: new Date(this.stamp()).toISOString() };
    expectAll(await db.writeMany(CHAT_MESSAGES_COLLECTION, ids.map((id) => ({ kind: 'update', id, body: { forgotten: true, updated_at: at } }))), 'update');
  }

  async deleteMessage(db: Session, messageId: string): Promise<void> {
    await db.delete(CHAT_MESSAGES_COLLECTION, messageId);
  }

  /** The raw stored record of a message (for answers that return the record). */
  messageFields(db: Session, messageId: string) {
    return db.findById(CHAT_MESSAGES_COLLECTION, messageId);
  }
}

/** Our own writes to our own collections failing one by one is a bug (or a record edited under us): say which. */
function expectAll(result: { failed: ReadonlyArray<{ error: string }> }, what: string): void {
  if (result.failed.length > 0) throw new Error(`chat storage: ${result.failed.length} message ${what}(s) failed: ${result.failed[0]!.error}`);
}
