/**
 * One key of the key-value store: its value in the JSON editor with an optional time to live (POST /api/kv/set),
 * its expiry counting down, delete with confirmation, and its links to records (kv-links.tsx). Also the form for
 * a new key. A key the signed-in API key may only read shows every write control disabled, saying why.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { canUseKv, NOT_ALLOWED, useAccess } from '../access.js';
import { ConfirmButton, ErrorBox, JsonEditor, jsonProblem, Loading } from '../components.js';
import { navigate } from '../router.js';
import { Countdown } from '../ttl.js';
import { isTyped, typeOf } from '../values.js';
import { KvLinks } from './kv-links.js';
import { escapeRegex, type KvFound } from '../kv.js';

/** Types whose bare JSON value sets them again as they are; others are edited as their `{type, value}` wrapper. */
const PLAIN_TYPES = new Set(['Object', 'Array', 'String', 'Integer', 'Float', 'Number', 'Boolean', 'Null']);

/** The JSON text to edit for a stored value (as find answers it, typed at the top). */
export function editableText(value: unknown): string {
  const plain = isTyped(value) && PLAIN_TYPES.has(value.type) ? value.value : value;
  return JSON.stringify(plain ?? null, null, 2);
}

/** The `ttl` member for what a person typed: whole seconds as a number, "30s" / "5m" / an instant as text. */
export function ttlMember(text: string): { ttl?: number | string } {
  const t = text.trim();
  if (!t) return {};
  return /^\d+$/.test(t) ? { ttl: Number(t) } : { ttl: t };
}

/** The value editor and TTL box with the save button, shared by an existing key and a new one. */
function ValueForm({
  id,
  initial,
  disabled,
  submitLabel,
  onSubmit,
  children,
  actions,
}: {
  id: string;
  initial: string;
  disabled: boolean;
  submitLabel: string;
  onSubmit: (value: unknown, ttl: { ttl?: number | string }) => Promise<void>;
  children?: ComponentChildren;
  /** More buttons beside the save button. */
  actions?: ComponentChildren;
}) {
  const [text, setText] = useState(initial);
  const [ttl, setTtl] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => setText(initial), [initial]);
  const broken = jsonProblem(text) !== undefined;
  return (
    <form
      class="kv-value"
      aria-label={submitLabel}
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        onSubmit(JSON.parse(text), ttlMember(ttl))
          .then(() => setTtl(''))
          .catch((err: unknown) => setError(err))
          .finally(() => setBusy(false));
      }}
    >
      {children}
      <JsonEditor
        id={`${id}-value`}
        label="Value (JSON)"
        value={text}
        onInput={setText}
        readOnly={disabled}
        rows={10}
      />
      <div class="row">
        <label for={`${id}-ttl`}>Time to live</label>
        <input
          id={`${id}-ttl`}
          class="kv-ttl-input"
          placeholder="never"
          aria-describedby={`${id}-ttl-help`}
          disabled={disabled}
          title={disabled ? NOT_ALLOWED : undefined}
          value={ttl}
          onInput={(e) => setTtl(e.currentTarget.value)}
        />
        <span id={`${id}-ttl-help`} class="muted small">
          seconds, or 30s, 5m, 2h; empty: never expires
        </span>
      </div>
      <ErrorBox error={error} />
      <div class="actions">
        <button type="submit" disabled={disabled || broken || busy} title={disabled ? NOT_ALLOWED : undefined}>
          {submitLabel}
        </button>
        {actions}
      </div>
    </form>
  );
}

/** The key's entry as find answers it (with expires_at, which get does not give), or null when it is gone. */
async function loadEntry(name: string): Promise<KvFound | null> {
  const found = await api<KvFound[]>('POST', '/api/kv/find', { pattern: `^${escapeRegex(name)}$`, limit: 1 });
  return found[0] ?? null;
}

export function KvEntry({ name, listHref, onChanged }: { name: string; listHref: string; onChanged: () => void }) {
  const access = useAccess();
  const mayWrite = canUseKv(access, 'write', name);
  const [entry, setEntry] = useState<KvFound | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setError(null);
    loadEntry(name).then(
      (e) => live && setEntry(e),
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [name, tick]);

  const save = async (value: unknown, ttl: { ttl?: number | string }) => {
    setSaved(false);
    await api('POST', `/api/kv/set/${enc(name)}`, { value, ...ttl });
    setSaved(true);
    setTick((n) => n + 1);
    onChanged();
  };
  const remove = async () => {
    try {
      await api('DELETE', `/api/kv/delete/${enc(name)}`);
      onChanged();
      navigate(listHref);
    } catch (err) {
      setError(err);
    }
  };
  const why = access && !mayWrite ? NOT_ALLOWED : undefined;

  return (
    <section class="card kv-entry" aria-labelledby="kv-entry-title" data-testid="kv-entry">
      <div class="row kv-entry-head">
        <h2 id="kv-entry-title" class="kv-key">
          {name}
        </h2>
        <a href={listHref} class="small">
          Close
        </a>
      </div>
      <ErrorBox error={error} />
      {entry === undefined && !error && <Loading what="the value" />}
      {entry === null && <p class="muted">This key does not exist (or has expired).</p>}
      {entry && (
        <>
          <dl class="facts">
            <dt>Type</dt>
            <dd>{typeOf(entry.value)}</dd>
            <dt>Expires in</dt>
            <dd>
              <Countdown expiresAt={entry.expires_at} />
            </dd>
          </dl>
          {why && (
            <p class="muted small" data-testid="read-only">
              Read only: this API key may not change this key.
            </p>
          )}
          <ValueForm
            id="kv-edit"
            initial={editableText(entry.value)}
            disabled={!mayWrite}
            submitLabel="Save value"
            onSubmit={save}
            actions={
              <ConfirmButton
                label="Delete key"
                question={`Delete the key “${name}” and its links? This cannot be undone.`}
                confirmLabel="Delete"
                disabled={!mayWrite}
                title={why}
                onConfirm={remove}
              />
            }
          />
          {saved && (
            <p class="ok small" role="status">
              Saved.
            </p>
          )}
          <KvLinks name={name} mayWrite={mayWrite} />
        </>
      )}
    </section>
  );
}

/** The form for a key that does not exist yet; on success the page moves to the new key. */
export function KvNew({
  prefix,
  entryHref,
  onChanged,
}: {
  prefix: string;
  entryHref: (key: string) => string;
  onChanged: () => void;
}) {
  const access = useAccess();
  const [key, setKey] = useState(prefix);
  const mayWrite = canUseKv(access, 'write', key || undefined);
  const create = async (value: unknown, ttl: { ttl?: number | string }) => {
    if (!key) throw new Error('Give the key a name.');
    await api('POST', `/api/kv/set/${enc(key)}`, { value, ...ttl });
    onChanged();
    navigate(entryHref(key));
  };
  return (
    <section class="card kv-entry" aria-labelledby="kv-new-title">
      <h2 id="kv-new-title" class="small">
        New key
      </h2>
      <ValueForm id="kv-new" initial={'{\n  \n}'} disabled={!mayWrite} submitLabel="Set key" onSubmit={create}>
        <label for="kv-new-key">Key</label>
        <input
          id="kv-new-key"
          spellcheck={false}
          required
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
          title={access && !mayWrite ? NOT_ALLOWED : undefined}
        />
      </ValueForm>
    </section>
  );
}
