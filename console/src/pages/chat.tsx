/**
 * Chat: the providers and their status, the sessions (newest first, paged with `skip` in the URL), a form to start
 * one, and merging the sessions ticked in the table into a new or an existing session.
 */
import { useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { NOT_ALLOWED, useAccess } from '../access.js';
import { useApi } from '../hooks.js';
import { ConfirmButton, ErrorBox, Loading } from '../components.js';
import { navigate } from '../router.js';
import {
  chatRights,
  MESSAGES_COLLECTION,
  SESSIONS_COLLECTION,
  MERGE_STRATEGIES,
  sessionName,
  shortTime,
  type ChatModels,
  type ChatSession,
} from './chat-data.js';
import { providerLabel, ProvidersCard } from './chat-providers.js';
import { NewSession } from './chat-new-session.js';
import './chat.css';

const PAGE = 20;

interface SessionPage {
  sessions: ChatSession[];
  total: number;
  returned: number;
}

export function Chat({ query }: { query: URLSearchParams }) {
  const access = useAccess();
  const rights = chatRights(access);
  const skip = Math.max(0, Number(query.get('skip')) || 0);
  const models = useApi<ChatModels>('/api/chat_models');
  const page = useApi<SessionPage>(rights.read ? `/api/chat?limit=${PAGE}&skip=${skip}&sort=desc` : null);
  const [selected, setSelected] = useState<string[]>([]);
  const [error, setError] = useState<unknown>(null);

  const remove = async (id: string) => {
    setError(null);
    try {
      await api('DELETE', `/api/chat/${enc(id)}`);
      setSelected((s) => s.filter((x) => x !== id));
      page.reload();
    } catch (err) {
      setError(err);
    }
  };
  const sessions = page.data?.sessions ?? [];
  const total = page.data?.total ?? 0;

  return (
    <main id="main">
      <h1>Chat</h1>
      <ProvidersCard models={models} />
      <NewSession access={access} models={models.data} canWrite={rights.write} />
      <section class="card" aria-labelledby="sessions-heading">
        <h2 id="sessions-heading" class="small">
          Sessions {page.data && <span class="muted">({total.toLocaleString('en')})</span>}
        </h2>
        <ErrorBox error={page.error ?? error} />
        {access && !rights.read && (
          <p class="muted" data-testid="sessions-not-allowed">
            This API key may not read chat sessions: they are records of {SESSIONS_COLLECTION} and {MESSAGES_COLLECTION}
            , which it is not granted.
          </p>
        )}
        {rights.read && page.loading && !page.data && <Loading what="sessions" />}
        {page.data && sessions.length === 0 && (
          <p class="muted">{skip > 0 ? 'No sessions on this page.' : 'No sessions yet. Create one above.'}</p>
        )}
        {sessions.length > 0 && (
          <div class="scroll chat-scroll">
            <table class="data chat-sessions" data-testid="sessions">
              <thead>
                <tr>
                  <th scope="col">
                    <span class="chat-sr">Select for merge</span>
                  </th>
                  <th scope="col">Session</th>
                  <th scope="col">Provider</th>
                  <th scope="col">Collections</th>
                  <th scope="col" class="num">
                    Messages
                  </th>
                  <th scope="col">Updated</th>
                  <th scope="col">
                    <span class="chat-sr">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {sessions.map((s) => (
                  <tr key={s.chat_id} data-chat={s.chat_id}>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Select ${sessionName(s)} for merge`}
                        checked={selected.includes(s.chat_id)}
                        onChange={(e) => {
                          const on = e.currentTarget.checked;
                          setSelected((cur) =>
                            on
                              ? [...cur.filter((x) => x !== s.chat_id), s.chat_id]
                              : cur.filter((x) => x !== s.chat_id),
                          );
                        }}
                      />
                    </td>
                    <td class="chat-wrap chat-name">
                      <a href={`/chat/${enc(s.chat_id)}`}>{sessionName(s)}</a>
                      {s.parent_id && <span class="type">branch</span>}
                    </td>
                    <td>
                      {providerLabel(s.llm_provider)}
                      {s.llm_model && <span class="muted small"> · {s.llm_model}</span>}
                    </td>
                    <td class="chat-wrap">
                      {s.collections.length ? (
                        s.collections.map((c) => c.collection_name).join(', ')
                      ) : (
                        <span class="muted">none</span>
                      )}
                    </td>
                    <td class="num">{s.message_count}</td>
                    <td class="small">
                      <time dateTime={s.updated_at}>{shortTime(s.updated_at)}</time>
                    </td>
                    <td>
                      <ConfirmButton
                        label="Delete"
                        question={`Delete the session “${sessionName(s)}” and all its messages?`}
                        confirmLabel="Delete session"
                        disabled={!rights.write}
                        title={rights.write ? `Delete ${sessionName(s)}` : NOT_ALLOWED}
                        onConfirm={() => remove(s.chat_id)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {(skip > 0 || skip + sessions.length < total) && (
          <div class="pager">
            <button
              type="button"
              class="secondary"
              disabled={skip === 0}
              onClick={() => navigate(`/chat?skip=${Math.max(0, skip - PAGE)}`)}
            >
              Previous
            </button>
            <span class="muted">
              {sessions.length ? `${skip + 1}–${skip + sessions.length} of ${total.toLocaleString('en')}` : ''}
            </span>
            <button
              type="button"
              class="secondary"
              disabled={skip + sessions.length >= total}
              onClick={() => navigate(`/chat?skip=${skip + PAGE}`)}
            >
              Next
            </button>
          </div>
        )}
        {sessions.length >= 2 && <MergeForm sessions={sessions} selected={selected} canWrite={rights.write} />}
      </section>
    </main>
  );
}

/** Merges the ticked sessions (POST /api/chat/merge) into a new session or into one of them, then opens it. */
function MergeForm({
  sessions,
  selected,
  canWrite,
}: {
  sessions: ChatSession[];
  selected: string[];
  canWrite: boolean;
}) {
  const [strategy, setStrategy] = useState<string>('Chronological');
  const [target, setTarget] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const chosen = sessions.filter((s) => selected.includes(s.chat_id));
  const into = chosen.some((s) => s.chat_id === target) ? target : '';
  const sources = chosen.filter((s) => s.chat_id !== into).map((s) => s.chat_id);
  const enough = chosen.length >= 2;

  const merge = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const merged = await api<{ session: ChatSession }>('POST', '/api/chat/merge', {
        source_chat_ids: sources,
        merge_strategy: strategy,
        ...(into ? { target_chat_id: into } : {}),
      });
      const id = merged.session.chat_id;
      // A merge names no title; a new session is named after its sources so that the list tells it apart.
      if (!into)
        await api('PUT', `/api/chat/${enc(id)}`, {
          title: `Merged: ${chosen.map(sessionName).join(' + ')}`.slice(0, 200),
        });
      navigate(`/chat/${enc(id)}`);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <form class="chat-merge" onSubmit={(e) => void merge(e)} aria-labelledby="merge-heading">
      <h3 id="merge-heading" class="small">
        Merge sessions
      </h3>
      <p class="muted small" id="merge-help">
        Tick two or more sessions above ({chosen.length} ticked). Their messages are copied into the target.
      </p>
      <div class="row">
        <label>
          Strategy{' '}
          <select id="merge-strategy" value={strategy} onChange={(e) => setStrategy(e.currentTarget.value)}>
            {MERGE_STRATEGIES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Into{' '}
          <select id="merge-target" value={into} onChange={(e) => setTarget(e.currentTarget.value)}>
            <option value="">a new session</option>
            {chosen.map((s) => (
              <option key={s.chat_id} value={s.chat_id}>
                {sessionName(s)}
              </option>
            ))}
          </select>
        </label>
        <button
          type="submit"
          aria-describedby="merge-help"
          disabled={!canWrite || !enough || busy}
          title={canWrite ? undefined : NOT_ALLOWED}
        >
          {busy ? 'Merging…' : 'Merge'}
        </button>
      </div>
      <ErrorBox error={error} />
    </form>
  );
}
