/**
 * A chat session's conversation: its settings, the latest messages (`last` in the URL, more on request), a message
 * box whose reply streams in token by token (POST .../messages/stream read as server-sent events), the context
 * snippets of each answer, branching from any message and merging another session into this one.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, enc } from '../api.js';
import { canUseCollection, NOT_ALLOWED, useAccess } from '../access.js';
import { useApi } from '../hooks.js';
import { ConfirmButton, ErrorBox, Loading } from '../components.js';
import { navigate } from '../router.js';
import { postStream } from '../sse.js';
import { chatRights, sessionName, toMessage, type ChatMessage, type ChatSession, type Snippet } from './chat-data.js';
import { MessageItem, PendingExchange } from './chat-message.js';
import { providerLabel } from './chat-providers.js';
import { MergeInto } from './chat-merge-into.js';
import './chat.css';

const STEP = 50;

interface Pending {
  question: string;
  answer: string;
  snippets: Snippet[];
  streaming: boolean;
}

interface StreamError {
  error?: string;
  error_kind?: string;
  provider?: string;
  retry_after_secs?: number;
}

function streamFailure(data: unknown, requestId: string | undefined): ApiError {
  const e = (data ?? {}) as StreamError;
  const kind = e.error_kind ? ` [${e.error_kind}${e.provider ? `, ${e.provider}` : ''}]` : '';
  return new ApiError(`${e.error ?? 'The stream failed'}${kind}`, 0, requestId);
}

export function ChatConversation({ chatId, query }: { chatId: string; query: URLSearchParams }) {
  const access = useAccess();
  const rights = chatRights(access);
  const last = Math.max(STEP, Number(query.get('last')) || STEP);
  const session = useApi<{ session: ChatSession; message_count: number }>(`/api/chat/${enc(chatId)}`);
  const [messages, setMessages] = useState<{ list: ChatMessage[]; total: number } | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [pending, setPending] = useState<Pending | null>(null);
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [branching, setBranching] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const end = useRef<HTMLDivElement>(null);

  const loadMessages = async () => {
    const page = await api<{ messages: Record<string, unknown>[]; total: number }>(
      'GET',
      `/api/chat/${enc(chatId)}/messages?sort=desc&limit=${last}`,
    );
    setMessages({ list: page.messages.map(toMessage).reverse(), total: page.total });
  };

  useEffect(() => {
    setMessages(null);
    setLoadError(null);
    loadMessages().catch(setLoadError);
    return () => abort.current?.abort();
  }, [chatId, last]);

  useEffect(() => {
    if (pending) end.current?.scrollIntoView({ block: 'nearest' });
  }, [pending?.answer]);

  const s = session.data?.session;
  const searched = s?.collections.map((c) => c.collection_name) ?? [];
  const mayRead = searched.every((c) => canUseCollection(access, c, 'read'));
  const maySend = rights.write && mayRead;

  const send = async (e: Event) => {
    e.preventDefault();
    const question = draft.trim();
    if (!question || pending?.streaming) return;
    setError(null);
    setPending({ question, answer: '', snippets: [], streaming: true });
    setDraft('');
    const controller = new AbortController();
    abort.current = controller;
    let requestId: string | undefined;
    let failed: ApiError | null = null;
    try {
      await postStream(
        `/api/chat/${enc(chatId)}/messages/stream`,
        { message: question },
        (frames) => {
          let text = '';
          let done: Record<string, unknown> | undefined;
          for (const f of frames) {
            const data = (f.data ?? {}) as Record<string, unknown>;
            if (f.event === 'error') failed = streamFailure(data, requestId);
            else if (typeof data.token === 'string') text += data.token;
            else if (typeof data.message_id === 'string') done = data;
          }
          setPending(
            (p) =>
              p && {
                ...p,
                answer: done && typeof done.content === 'string' ? done.content : p.answer + text,
                snippets: Array.isArray(done?.context_snippets) ? (done.context_snippets as Snippet[]) : p.snippets,
                streaming: p.streaming && !done && !failed,
              },
          );
        },
        { signal: controller.signal, onOpen: (id) => (requestId = id) },
      );
      if (failed) throw failed;
      await loadMessages();
      session.reload();
      setPending(null);
    } catch (err) {
      if ((err as Error).name === 'AbortError') {
        // The server may have finished the exchange before it saw the stop: show what it stored.
        setError(new Error('Stopped before the whole answer arrived.'));
        setPending(null);
        await loadMessages().catch(setLoadError);
        session.reload();
      } else {
        setError(err);
        setDraft(question);
      }
      setPending(null);
    } finally {
      abort.current = null;
    }
  };

  const branch = async (index: number) => {
    setBranching(true);
    setError(null);
    try {
      const made = await api<{ chat_id: string }>('POST', '/api/chat/branch', {
        parent_id: chatId,
        branch_point_idx: index,
        ...(s ? { title: `${sessionName(s)} (branch at ${index + 1})` } : {}),
      });
      navigate(`/chat/${enc(made.chat_id)}`);
    } catch (err) {
      setError(err);
    } finally {
      setBranching(false);
    }
  };

  const remove = async () => {
    try {
      await api('DELETE', `/api/chat/${enc(chatId)}`);
      navigate('/chat');
    } catch (err) {
      setError(err);
    }
  };

  const shown = messages?.list ?? [];
  const total = messages?.total ?? 0;
  const first = total - shown.length;
  const name = s ? sessionName(s) : chatId;

  return (
    <main id="main" class="chat-page">
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="/chat">Chat</a> › <span aria-current="page">{name}</span>
      </nav>
      <h1>{name}</h1>
      <ErrorBox error={session.error} />
      {session.loading && !s && <Loading what="the session" />}
      {s && (
        <section class="card chat-facts" aria-label="Session settings">
          <dl class="facts">
            <dt>Provider</dt>
            <dd data-testid="session-provider">
              {providerLabel(s.llm_provider)}
              {s.llm_model && <span class="muted"> · {s.llm_model}</span>}
            </dd>
            <dt>Collections</dt>
            <dd>
              {searched.length === 0 && <span class="muted">none (no retrieval)</span>}
              {searched.map((c, i) => (
                <span key={c}>
                  {i > 0 && ', '}
                  <a href={`/collections/${enc(c)}`}>{c}</a>
                </span>
              ))}
            </dd>
            {s.system_prompt && (
              <>
                <dt>System prompt</dt>
                <dd class="chat-prompt">{s.system_prompt}</dd>
              </>
            )}
            {s.parent_id && (
              <>
                <dt>Branched from</dt>
                <dd data-testid="branched-from">
                  <ParentLink id={s.parent_id} />
                  {typeof s.branch_point_idx === 'number' && (
                    <span class="muted"> at message {s.branch_point_idx + 1}</span>
                  )}
                </dd>
              </>
            )}
            <dt>Messages</dt>
            <dd data-testid="message-count">{session.data?.message_count ?? 0}</dd>
          </dl>
          <div class="actions">
            <ConfirmButton
              label="Delete session"
              question={`Delete “${name}” and all its messages?`}
              disabled={!rights.write}
              title={rights.write ? undefined : NOT_ALLOWED}
              onConfirm={remove}
            />
          </div>
        </section>
      )}
      <ErrorBox error={loadError ?? error} />
      {!messages && !loadError && <Loading what="messages" />}
      {first > 0 && (
        <button
          type="button"
          class="secondary"
          onClick={() => navigate(`/chat/${enc(chatId)}?last=${last + STEP}`, true)}
        >
          Show earlier messages ({first} more)
        </button>
      )}
      {messages && shown.length === 0 && !pending && <p class="muted">No messages yet. Ask something below.</p>}
      <div role="log" aria-label="Conversation">
        <ol class="chat-log">
          {shown.map((m, i) => (
            <MessageItem
              key={m.id}
              message={m}
              index={first + i}
              canBranch={rights.write}
              branching={branching}
              onBranch={(idx) => void branch(idx)}
            />
          ))}
          {pending && <PendingExchange {...pending} />}
        </ol>
      </div>
      <div ref={end} />
      <form class="card chat-composer" onSubmit={(e) => void send(e)}>
        <label for="chat-message">Message</label>
        <textarea
          id="chat-message"
          class="chat-text"
          rows={3}
          value={draft}
          disabled={!maySend}
          title={maySend ? undefined : NOT_ALLOWED}
          aria-describedby="chat-message-help"
          onInput={(e) => setDraft(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void send(e);
          }}
        />
        <div class="row">
          <button type="submit" disabled={!maySend || !draft.trim() || pending?.streaming === true}>
            Send
          </button>
          {pending?.streaming && (
            <button type="button" class="secondary" onClick={() => abort.current?.abort()}>
              Stop
            </button>
          )}
          <span id="chat-message-help" class="muted small">
            Ctrl+Enter sends. The answer streams in as it is written.
          </span>
        </div>
      </form>
      {s && <MergeInto target={s} canWrite={rights.write} onMerged={() => void loadMessages().then(session.reload)} />}
    </main>
  );
}

/** The session a branch was made from, by name (its id when it is gone or cannot be read). */
function ParentLink({ id }: { id: string }) {
  const parent = useApi<{ session: ChatSession }>(`/api/chat/${enc(id)}`);
  const name = parent.data ? sessionName(parent.data.session) : id;
  return (
    <>
      <a href={`/chat/${enc(id)}`}>{name}</a>
      {parent.error !== null && parent.error !== undefined && (
        <span class="muted"> (deleted, or not readable by this key)</span>
      )}
    </>
  );
}
