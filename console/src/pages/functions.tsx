/**
 * Stored functions at /functions: every definition (GET /api/functions answers them all: definitions are few) with
 * its parameters and step count, deleting one, and creating one (`?new=1`, the editor on this page).
 */
import { useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { useAccess } from '../access.js';
import { ConfirmButton, ErrorBox, Loading } from '../components.js';
import { useApi } from '../hooks.js';
import { navigate } from '../router.js';
import { ADMIN_ONLY_FUNCTIONS } from './function.js';
import { DefinitionEditor } from './function-editor.js';
import { NEW_DEFINITION, stepsOf, type StoredFunction } from './function-model.js';
import './functions.css';

export function Functions({ query }: { query: URLSearchParams }) {
  const access = useAccess();
  const admin = access?.admin === true;
  const disabledReason = access && !admin ? ADMIN_ONLY_FUNCTIONS : access ? undefined : 'Checking this key…';
  const creating = query.get('new') === '1';
  const { data, error, loading, reload } = useApi<StoredFunction[]>('/api/functions');
  const [deleteError, setDeleteError] = useState<unknown>(null);

  return (
    <main id="main">
      <div class="row page-head">
        <h1>Functions</h1>
        {!creating && (
          <button type="button" disabled={!admin} title={disabledReason} onClick={() => navigate('/functions?new=1')}>
            New function
          </button>
        )}
      </div>
      <p class="muted">
        Stored pipelines of steps, validated when saved and run with their parameters. Saving needs an admin key.
      </p>
      {access && !admin && (
        <p class="notice" data-testid="admin-only">
          This key may list and run stored functions; creating, changing and deleting them are an admin key's.
        </p>
      )}
      {creating && (
        <section class="card" aria-labelledby="new-function">
          <h2 id="new-function" class="small">
            New function
          </h2>
          <DefinitionEditor
            id="new-definition"
            initialText={NEW_DEFINITION}
            saveLabel="Create"
            disabledReason={disabledReason}
            save={async (definition) => {
              await api('POST', '/api/functions', definition);
              const label = (definition as { label?: unknown }).label;
              navigate(`/functions/${enc(String(label))}`);
            }}
          />
          <p>
            <a href="/functions">Cancel</a>
          </p>
        </section>
      )}
      <ErrorBox error={error ?? deleteError} />
      {loading && !data && <Loading what="functions" />}
      {data && data.length === 0 && <p class="muted">No stored functions yet.</p>}
      {data && data.length > 0 && (
        <FunctionTable
          rows={data}
          admin={admin}
          reason={disabledReason}
          remove={async (fn) => {
            setDeleteError(null);
            await api('DELETE', `/api/functions/${enc(fn.id)}`).then(reload, setDeleteError);
          }}
        />
      )}
    </main>
  );
}

function FunctionTable({
  rows,
  admin,
  reason,
  remove,
}: {
  rows: StoredFunction[];
  admin: boolean;
  reason: string | undefined;
  remove: (fn: StoredFunction) => Promise<void>;
}) {
  return (
    <div class="scroll" tabIndex={0} role="region" aria-label="Stored functions">
      <table class="data fn-list">
        <thead>
          <tr>
            <th scope="col">Label</th>
            <th scope="col">Name</th>
            <th scope="col">Description</th>
            <th scope="col">Parameters</th>
            <th scope="col" class="num">
              Steps
            </th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((fn) => (
            <tr key={fn.id} data-function={fn.label}>
              <td>
                <a href={`/functions/${enc(fn.label)}`}>{fn.label}</a>
              </td>
              <td>{fn.name ?? '—'}</td>
              <td class="wrap">{fn.description || <span class="muted">—</span>}</td>
              <td class="wrap">
                {Object.entries(fn.parameters ?? {}).map(([name, p], i) => (
                  <span key={name}>
                    {i > 0 && ', '}
                    <code>{name}</code>
                    {p.required && <abbr title="required">*</abbr>}
                  </span>
                ))}
                {Object.keys(fn.parameters ?? {}).length === 0 && <span class="muted">none</span>}
              </td>
              <td class="num" data-testid="step-count">
                {stepsOf(fn).length}
              </td>
              <td>
                <div class="actions">
                  <a href={`/functions/${enc(fn.label)}?view=run`} aria-label={`Run ${fn.label}`}>
                    Run
                  </a>
                  <ConfirmButton
                    label="Delete"
                    question={`Delete the function '${fn.label}'? Calls to it fail from then on.`}
                    disabled={!admin}
                    title={reason}
                    onConfirm={() => remove(fn)}
                  />
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
