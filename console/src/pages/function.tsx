/**
 * One stored function at /functions/{id or label}: its facts, and three views chosen by `?view=`: the definition
 * editor (default), the run form, the history. Saving, deleting and the history are an admin's; any key may run.
 */
import { useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { useAccess } from '../access.js';
import { ConfirmButton, ErrorBox, Loading } from '../components.js';
import { useApi } from '../hooks.js';
import { navigate } from '../router.js';
import { DefinitionEditor } from './function-editor.js';
import { FunctionHistory } from './function-history.js';
import { definitionText, stepsOf, type StoredFunction } from './function-model.js';
import { RunForm } from './function-run.js';
import '../tabs.css';
import './functions.css';

type View = 'definition' | 'run' | 'history';
const VIEWS: { id: View; label: string }[] = [
  { id: 'definition', label: 'Definition' },
  { id: 'run', label: 'Run' },
  { id: 'history', label: 'History' },
];

/** Shown to a key that is not an admin's. */
export const ADMIN_ONLY_FUNCTIONS = 'Only an admin key may save or delete stored functions';

export function FunctionPage({ idOrLabel, query }: { idOrLabel: string; query: URLSearchParams }) {
  const access = useAccess();
  const admin = access?.admin === true;
  const { data: fn, error, loading, reload } = useApi<StoredFunction>(`/api/functions/${enc(idOrLabel)}`);
  const view: View = VIEWS.some((v) => v.id === query.get('view')) ? (query.get('view') as View) : 'definition';
  const disabledReason = access && !admin ? ADMIN_ONLY_FUNCTIONS : access ? undefined : 'Checking this key…';

  /** After a save: follow a renamed label, else show the saved definition. */
  const saved = (label: string) => {
    if (label !== idOrLabel && label !== fn?.id) navigate(`/functions/${enc(label)}?view=${view}`, true);
    else reload();
  };

  return (
    <main id="main">
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/functions">Functions</a> / <span>{idOrLabel}</span>
      </nav>
      <h1>{fn?.name && fn.name !== fn.label ? `${fn.name} (${fn.label})` : (fn?.label ?? idOrLabel)}</h1>
      <ErrorBox error={error} />
      {loading && !fn && <Loading what="the function" />}
      {fn && (
        <>
          <FunctionFacts fn={fn} admin={admin} disabledReason={disabledReason} />
          {access && !admin && (
            <p class="notice" data-testid="admin-only">
              This key may read and run stored functions. Saving, deleting and the history are an admin key's: their
              controls are disabled here.
            </p>
          )}
          <nav class="tabs" aria-label="Views of this function">
            {VIEWS.map((v) => (
              <a
                key={v.id}
                href={`/functions/${enc(idOrLabel)}?view=${v.id}`}
                aria-current={v.id === view ? 'page' : undefined}
              >
                {v.label}
              </a>
            ))}
          </nav>
          {view === 'definition' && (
            <DefinitionEditor
              key={`${fn.id}:${fn.updated_at ?? ''}`}
              id="definition"
              initialText={definitionText(fn)}
              saveLabel="Save"
              disabledReason={disabledReason}
              save={async (definition) => {
                await api('PUT', `/api/functions/${enc(fn.id)}`, definition);
                const label = (definition as { label?: unknown }).label;
                saved(typeof label === 'string' ? label : fn.label);
              }}
            />
          )}
          {view === 'run' && <RunForm fn={fn} query={query} />}
          {view === 'history' && (
            <FunctionHistory fn={fn} query={query} admin={admin} onRestored={(label) => saved(label)} />
          )}
        </>
      )}
    </main>
  );
}

function FunctionFacts({
  fn,
  admin,
  disabledReason,
}: {
  fn: StoredFunction;
  admin: boolean;
  disabledReason: string | undefined;
}) {
  const [error, setError] = useState<unknown>(null);
  const params = Object.keys(fn.parameters ?? {});
  return (
    <div class="card fn-facts">
      <dl class="facts">
        {fn.description && (
          <>
            <dt>Description</dt>
            <dd>{fn.description}</dd>
          </>
        )}
        <dt>Id</dt>
        <dd>
          <code>{fn.id}</code>
        </dd>
        <dt>Steps</dt>
        <dd>
          {fn.functions?.length ?? 0} top-level, {stepsOf(fn).length} in all
        </dd>
        <dt>Parameters</dt>
        <dd>{params.length ? params.join(', ') : 'none'}</dd>
        {fn.http_path && (
          <>
            <dt>Route</dt>
            <dd>
              <code>
                {fn.http_method ?? 'GET'} /api/route{fn.http_path}
              </code>
            </dd>
          </>
        )}
        {fn.tags && fn.tags.length > 0 && (
          <>
            <dt>Tags</dt>
            <dd>{fn.tags.join(', ')}</dd>
          </>
        )}
        <dt>Updated</dt>
        <dd>{fn.updated_at ?? '—'}</dd>
      </dl>
      <div class="actions">
        <ConfirmButton
          label="Delete function"
          question={`Delete the function '${fn.label}'? Calls to it fail from then on.`}
          confirmLabel="Delete"
          disabled={!admin}
          title={disabledReason}
          onConfirm={() => api('DELETE', `/api/functions/${enc(fn.id)}`).then(() => navigate('/functions'), setError)}
        />
      </div>
      <ErrorBox error={error} />
    </div>
  );
}
