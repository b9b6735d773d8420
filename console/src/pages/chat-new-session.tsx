/**
 * The form that starts a chat session (POST /api/chat): provider and model, the collections each message searches
 * for context, a title and the system prompt. Collections the key may not read are shown disabled.
 */
import { useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { canUseCollection, NOT_ALLOWED, type Access } from '../access.js';
import { useCollectionNames } from '../hooks.js';
import { ErrorBox } from '../components.js';
import { navigate } from '../router.js';
import type { ChatModels } from './chat-data.js';
import { PROVIDERS, providerLabel } from './chat-providers.js';

export function NewSession({
  access,
  models,
  canWrite,
}: {
  access: Access | null;
  models: ChatModels | undefined;
  canWrite: boolean;
}) {
  const collections = useCollectionNames();
  const [provider, setProvider] = useState('local');
  const [model, setModel] = useState('');
  const [title, setTitle] = useState('');
  const [prompt, setPrompt] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // A configured provider may be chosen even when its last check failed: the check is a moment's answer.
  const statusOf = (id: string) => (id === 'local' ? 'ok' : (models?.providers?.[id]?.status ?? 'not_configured'));
  const listed = models?.[provider] ?? [];

  const toggle = (name: string, on: boolean) =>
    setChosen((c) => (on ? [...c.filter((x) => x !== name), name] : c.filter((x) => x !== name)));

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await api<{ chat_id: string }>('POST', '/api/chat', {
        llm_provider: provider,
        ...(model.trim() ? { llm_model: model.trim() } : {}),
        ...(title.trim() ? { title: title.trim() } : {}),
        ...(prompt.trim() ? { system_prompt: prompt } : {}),
        collections: chosen.map((collection_name) => ({ collection_name })),
      });
      navigate(`/chat/${enc(created.chat_id)}`);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  const names = collections.names ?? [];
  return (
    <form class="card chat-new" onSubmit={(e) => void submit(e)} aria-labelledby="new-session-heading">
      <h2 id="new-session-heading" class="small">
        New session
      </h2>
      <div class="chat-grid">
        <label>
          Provider
          <select
            id="chat-provider"
            value={provider}
            onChange={(e) => {
              setProvider(e.currentTarget.value);
              setModel('');
            }}
          >
            {PROVIDERS.map((id) => (
              <option key={id} value={id} disabled={statusOf(id) === 'not_configured'}>
                {providerLabel(id)}
                {statusOf(id) === 'ok' ? '' : ` (${statusOf(id).replace(/_/g, ' ')})`}
              </option>
            ))}
          </select>
        </label>
        <label>
          Model
          <input
            id="chat-model"
            list="chat-model-list"
            value={model}
            placeholder={listed[0] ?? 'the provider default'}
            onInput={(e) => setModel(e.currentTarget.value)}
          />
          <datalist id="chat-model-list">
            {listed.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </label>
        <label>
          Title
          <input id="chat-title" value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
      </div>
      <fieldset class="chat-collections">
        <legend>Collections searched for context</legend>
        <ErrorBox error={collections.error} />
        {!collections.names && !collections.error && <span class="muted">Loading collections…</span>}
        {collections.names && names.length === 0 && <span class="muted">No collections to search.</span>}
        {names.map((name) => {
          const readable = canUseCollection(access, name, 'read');
          return (
            <label key={name} class="chat-check" title={readable ? undefined : NOT_ALLOWED}>
              <input
                type="checkbox"
                name="chat-collection"
                value={name}
                disabled={!readable}
                checked={chosen.includes(name)}
                onChange={(e) => toggle(name, e.currentTarget.checked)}
              />{' '}
              {name}
            </label>
          );
        })}
      </fieldset>
      <label for="chat-system-prompt">System prompt</label>
      <textarea
        id="chat-system-prompt"
        class="chat-text"
        rows={3}
        value={prompt}
        placeholder="You answer questions about our documents."
        onInput={(e) => setPrompt(e.currentTarget.value)}
      />
      <ErrorBox error={error} />
      <div class="actions">
        <button type="submit" disabled={!canWrite || busy} title={canWrite ? undefined : NOT_ALLOWED}>
          {busy ? 'Creating…' : 'Create session'}
        </button>
      </div>
    </form>
  );
}
