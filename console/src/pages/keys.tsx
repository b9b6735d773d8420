/**
 * Keys and permissions: the signed-in key (GET /api/auth/me), the list of keys (GET /api/auth/keys), a new key
 * whose secret is shown once, and one key's rights edited (PUT /api/auth/keys/{id}) or revoked (DELETE). Managing
 * keys is an admin's job: another key sees these pages with their controls disabled, saying why.
 */
import { useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { useAccess } from '../access.js';
import { ConfirmButton, ErrorBox, Loading } from '../components.js';
import { useApi, useCollectionNames } from '../hooks.js';
import { navigate } from '../router.js';
import {
  BOOTSTRAP_KEY_ID,
  NEW_KEY_RIGHTS,
  requestBody,
  rightsOf,
  rightsProblem,
  rightsSummary,
  type KeyView,
  type Rights,
} from './key-rights.js';
import { PermissionsEditor } from './permissions-editor.js';
import { SecretOnce } from './secret-once.js';
import './keys.css';

/** Why a key that is not an admin's may not use these controls. */
export const ADMIN_ONLY = 'Only an admin key may manage keys';
const BOOTSTRAP_FIXED = 'The bootstrap admin key cannot be changed or revoked here: EDDYDB_ADMIN_KEY sets it';

const when = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');

/** The key this tab is signed in with, as the server describes it. */
function SignedInCard() {
  const me = useApi<KeyView>('/api/auth/me');
  return (
    <section class="card" aria-labelledby="me-heading" data-testid="me">
      <h2 class="small" id="me-heading">
        Signed in as
      </h2>
      <ErrorBox error={me.error} />
      {me.loading && !me.data && <Loading what="this key" />}
      {me.data && (
        <dl class="facts">
          <dt>Name</dt>
          <dd>{me.data.name}</dd>
          <dt>ID</dt>
          <dd>
            <code>{me.data.id}</code>
          </dd>
          <dt>Kind</dt>
          <dd>{me.data.admin ? 'admin' : 'restricted'}</dd>
          <dt>May use</dt>
          <dd data-testid="me-rights">{rightsSummary(me.data)}</dd>
          {me.data.rate_limit ? (
            <>
              <dt>Rate limit</dt>
              <dd>{me.data.rate_limit} requests per window</dd>
            </>
          ) : null}
        </dl>
      )}
    </section>
  );
}

/** A note for a key that is not an admin's, saying what it may not do here and why. */
function RestrictedNote() {
  return (
    <p class="notice" data-testid="restricted-note">
      This key is not an admin's: it may see who it is, but not list, create, change or revoke keys.
    </p>
  );
}

export function Keys() {
  const access = useAccess();
  const admin = access?.admin === true;
  const keys = useApi<{ keys: KeyView[] }>(admin ? '/api/auth/keys' : null);
  const sorted = keys.data ? [...keys.data.keys].sort((a, b) => a.created_at.localeCompare(b.created_at)) : undefined;
  return (
    <main id="main">
      <h1>Keys and permissions</h1>
      <SignedInCard />
      {access && !admin && <RestrictedNote />}
      <div class="actions keys-actions">
        {admin ? (
          <a class="button" href="/keys/new">
            New key
          </a>
        ) : (
          <button type="button" disabled title={access ? ADMIN_ONLY : 'Checking this key’s rights'}>
            New key
          </button>
        )}
      </div>
      <h2 class="small">All keys</h2>
      {!access && <Loading what="this key’s rights" />}
      {access && !admin && <p class="muted">The list of keys is shown to admin keys only.</p>}
      <ErrorBox error={keys.error} />
      {admin && !sorted && !keys.error && <Loading what="keys" />}
      {sorted && (
        <div class="scroll">
          <table class="data keys-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">ID</th>
                <th scope="col">Admin</th>
                <th scope="col">Created</th>
                <th scope="col">Rights</th>
              </tr>
            </thead>
            <tbody>
              {sorted.map((k) => (
                <tr key={k.id} data-key={k.id}>
                  <td>
                    <a href={`/keys/${enc(k.id)}`}>{k.name}</a>
                    {k.id === BOOTSTRAP_KEY_ID && <span class="type">bootstrap</span>}
                  </td>
                  <td>
                    <code>{k.id}</code>
                  </td>
                  <td>{k.admin ? 'yes' : 'no'}</td>
                  <td>{when(k.created_at)}</td>
                  <td class="wrap" data-testid="rights-summary">
                    {rightsSummary(k)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </main>
  );
}

function Crumbs({ here }: { here: string }) {
  return (
    <nav aria-label="Breadcrumb" class="crumbs">
      <a href="/keys">Keys</a> / <span>{here}</span>
    </nav>
  );
}

/** Creates a key from the editor's rights and shows its secret once. */
export function NewKey() {
  const access = useAccess();
  const admin = access?.admin === true;
  const { names } = useCollectionNames();
  const [rights, setRights] = useState<Rights>(NEW_KEY_RIGHTS);
  const [created, setCreated] = useState<(KeyView & { key: string }) | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const problem = rightsProblem(rights);
  const reason = !access ? 'Checking this key’s rights' : !admin ? ADMIN_ONLY : undefined;
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setCreated(await api<KeyView & { key: string }>('POST', '/api/auth/keys', requestBody(rights)));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main">
      <Crumbs here="New key" />
      <h1>New key</h1>
      {access && !admin && <RestrictedNote />}
      {created ? (
        <>
          <SecretOnce name={created.name} secret={created.key} />
          <p class="muted">May use: {rightsSummary(created)}</p>
          <div class="actions">
            <a class="button" href={`/keys/${enc(created.id)}`}>
              Go to the key
            </a>
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setCreated(null);
                setRights(NEW_KEY_RIGHTS);
              }}
            >
              Create another
            </button>
          </div>
        </>
      ) : (
        <form class="card" onSubmit={(e) => void submit(e)}>
          <PermissionsEditor
            id="new-key"
            value={rights}
            onChange={setRights}
            collectionNames={names}
            disabledReason={reason}
          />
          {problem && (
            <p class="field-errors" role="alert">
              {problem}
            </p>
          )}
          <ErrorBox error={error} />
          <div class="actions">
            <button type="submit" disabled={!!reason || !!problem || busy} title={reason ?? problem}>
              {busy ? 'Creating…' : 'Create key'}
            </button>
          </div>
        </form>
      )}
    </main>
  );
}

/** The key with this id: from the list for an admin, from /api/auth/me for the key itself. */
function useKey(id: string, admin: boolean | undefined) {
  const listed = useApi<{ keys: KeyView[] }>(admin === true ? '/api/auth/keys' : null);
  const me = useApi<KeyView>(admin === false ? '/api/auth/me' : null);
  const from = admin ? listed : me;
  const key = admin ? listed.data?.keys.find((k) => k.id === id) : me.data?.id === id ? me.data : undefined;
  return { key, error: from.error, done: from.data !== undefined, reload: from.reload };
}

export function KeyDetail({ id }: { id: string }) {
  const access = useAccess();
  const admin = access?.admin;
  const { key, error, done, reload } = useKey(id, admin);
  return (
    <main id="main">
      <Crumbs here={key?.name ?? id} />
      <h1>Key {key?.name ?? id}</h1>
      {admin === false && <RestrictedNote />}
      <ErrorBox error={error} />
      {!done && !error && <Loading what="the key" />}
      {done && !key && (
        <p class="muted" data-testid="no-key">
          {admin ? `There is no key with the id ${id}.` : 'A key that is not an admin’s may see only itself.'}
        </p>
      )}
      {key && <KeyEditor key={key.id} current={key} admin={admin === true} onSaved={reload} />}
    </main>
  );
}

function KeyEditor({ current, admin, onSaved }: { current: KeyView; admin: boolean; onSaved: () => void }) {
  const { names } = useCollectionNames();
  const [rights, setRights] = useState<Rights>(() => rightsOf(current));
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const bootstrap = current.id === BOOTSTRAP_KEY_ID;
  const reason = !admin ? ADMIN_ONLY : bootstrap ? BOOTSTRAP_FIXED : undefined;
  const problem = rightsProblem(rights);
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      const next = await api<KeyView>('PUT', `/api/auth/keys/${enc(current.id)}`, requestBody(rights));
      setRights(rightsOf(next));
      setSaved(true);
      onSaved();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const revoke = async () => {
    setError(null);
    try {
      await api('DELETE', `/api/auth/keys/${enc(current.id)}`);
      navigate('/keys');
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <section class="card" aria-label="About this key">
        <dl class="facts">
          <dt>ID</dt>
          <dd>
            <code>{current.id}</code>
          </dd>
          <dt>Created</dt>
          <dd>{when(current.created_at)}</dd>
          <dt>May use</dt>
          <dd data-testid="key-rights">{rightsSummary(current)}</dd>
        </dl>
        {bootstrap && <p class="notice">{BOOTSTRAP_FIXED}.</p>}
      </section>
      <form class="card" onSubmit={(e) => void save(e)}>
        <h2 class="small">Rights</h2>
        <PermissionsEditor
          id="key"
          value={rights}
          onChange={(r) => {
            setRights(r);
            setSaved(false);
          }}
          collectionNames={names}
          disabledReason={reason}
        />
        {problem && (
          <p class="field-errors" role="alert">
            {problem}
          </p>
        )}
        <ErrorBox error={error} />
        <div class="actions">
          <button type="submit" disabled={!!reason || !!problem || busy} title={reason ?? problem}>
            {busy ? 'Saving…' : 'Save rights'}
          </button>
          <ConfirmButton
            label="Revoke key"
            question={
              `Revoke the key ${current.name} (${current.id})? ` +
              'Its tokens stop working at once and its live connections end.'
            }
            confirmLabel="Revoke"
            disabled={!!reason}
            title={reason}
            onConfirm={revoke}
          />
          <span role="status" class="saved">
            {saved ? 'Saved: tokens of this key have the new rights from their next request.' : ''}
          </span>
        </div>
      </form>
    </>
  );
}
