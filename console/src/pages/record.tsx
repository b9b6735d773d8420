/**
 * One record (GET /api/find/{c}/{id}) as the server sent it, with Edit (`?edit=1`, the JSON editor) and a
 * confirmed Delete. A deleted record goes to the collection's trash for 30 days; an admin can restore it here.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { canUseCollection, NOT_ALLOWED, useAccess } from '../access.js';
import { ConfirmButton, ErrorBox, Loading } from '../components.js';
import { parseExact, prettyJson, stringifyExact } from '../json-text.js';
import { isTyped, typeOf } from '../values.js';
import { apiText } from '../raw-api.js';
import { navigate } from '../router.js';
import { editableText, RecordEditor } from './record-editor.js';
import './records.css';

export function RecordView({ collection, id, edit }: { collection: string; id: string; edit: boolean }) {
  const access = useAccess();
  const canWrite = canUseCollection(access, collection, 'write');
  const writeTitle = access && !canWrite ? NOT_ALLOWED : undefined;
  const [text, setText] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [deleted, setDeleted] = useState(false);
  const [tick, setTick] = useState(0);
  const here = `/collections/${enc(collection)}/records/${enc(id)}`;
  useEffect(() => {
    let live = true;
    setError(null);
    apiText('GET', `/api/find/${enc(collection)}/${enc(id)}`).then(
      (t) => live && setText(t),
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [collection, id, tick]);

  const remove = async () => {
    try {
      await api('DELETE', `/api/delete/${enc(collection)}/${enc(id)}`);
      setDeleted(true);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <main id="main" class="records-page">
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/collections">Collections</a> / <a href={`/collections/${enc(collection)}`}>{collection}</a> /{' '}
        <span>{id}</span>
      </nav>
      <div class="title-row">
        <h1>
          {edit && !deleted ? 'Edit record' : 'Record'} {id}
        </h1>
        {!edit && text !== undefined && !deleted && (
          <div class="actions">
            {canWrite ? (
              <a class="button" href={`${here}?edit=1`}>
                Edit
              </a>
            ) : (
              <button type="button" disabled title={writeTitle}>
                Edit
              </button>
            )}
            <ConfirmButton
              label="Delete"
              question={`Delete record ${id}? It goes to the trash, where an admin can restore it for 30 days.`}
              confirmLabel={`Delete ${id}`}
              disabled={!canWrite}
              title={writeTitle}
              onConfirm={remove}
            />
          </div>
        )}
      </div>
      <ErrorBox error={error} />
      {deleted && (
        <TrashNotice
          collection={collection}
          id={id}
          admin={access?.admin === true}
          onRestored={() => {
            setDeleted(false);
            setTick((n) => n + 1);
          }}
        />
      )}
      {text === undefined && !error && <Loading what="the record" />}
      {text !== undefined && !deleted && edit && (
        <RecordEditor
          key={text}
          collection={collection}
          id={id}
          {...(() => {
            const e = editableText(text);
            return { initial: e.text, original: e.members };
          })()}
          onDone={() => {
            setTick((n) => n + 1);
            navigate(here);
          }}
        />
      )}
      {text !== undefined && !deleted && !edit && (
        <>
          <FieldTable text={text} />
          <details class="record-as-json" open>
            <summary>As JSON</summary>
            <pre class="json card" tabIndex={0} aria-label="Record as JSON" data-testid="record-json">
              {prettyJson(text)}
            </pre>
          </details>
        </>
      )}
    </main>
  );
}

/** The record's fields, each with its type and its whole value. */
function FieldTable({ text }: { text: string }) {
  const record = parseExact<Record<string, unknown>>(text);
  return (
    <table class="data fields" data-testid="record-fields">
      <caption class="visually-hidden">Fields</caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Type</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {Object.entries(record).map(([name, v]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>
              <span class="type">{name === 'id' ? 'id' : typeof v === 'bigint' ? 'Integer' : typeOf(v)}</span>
            </td>
            <td class="wrap">{valueText(v)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A value's whole text: a string as it is, anything else as JSON with every digit. */
function valueText(v: unknown): string {
  const inner = isTyped(v) ? v.value : v;
  if (inner === null || inner === undefined) return 'null';
  return typeof inner === 'string' ? inner : stringifyExact(inner);
}

/** Says a record went to the trash, with Restore for an admin (POST /api/trash/{c}/{id}). */
export function TrashNotice({
  collection,
  id,
  admin,
  onRestored,
}: {
  collection: string;
  id: string;
  admin: boolean;
  onRestored: () => void;
}) {
  const [error, setError] = useState<unknown>(null);
  const restore = async () => {
    try {
      await api('POST', `/api/trash/${enc(collection)}/${enc(id)}`);
      onRestored();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <div class="note trash-notice" role="status" data-testid="trash-notice">
      <p>
        Record <code>{id}</code> was moved to the trash of {collection}. It can be restored for 30 days.
      </p>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          disabled={!admin}
          title={admin ? undefined : 'Only an admin key may restore from the trash'}
          onClick={() => void restore()}
        >
          Restore {id}
        </button>
        <a href={`/collections/${enc(collection)}`}>Back to {collection}</a>
      </div>
      <ErrorBox error={error} />
    </div>
  );
}
