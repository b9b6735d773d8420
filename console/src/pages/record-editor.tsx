/**
 * Insert and edit a record as JSON text. Typed values (`{type, value}`) are sent back as the server gave them, and
 * the text is never parsed into numbers, so nothing is rounded or retyped. An edit sends only the members that
 * changed (a merge update), which also keeps a key with writable_fields within them. The server's schema
 * violations are shown at the members they name.
 */
import { useState } from 'preact/hooks';
import { enc, fieldErrors } from '../api.js';
import { ErrorBox, JsonEditor, jsonProblem, Loading } from '../components.js';
import { canUseCollection, NOT_ALLOWED, useAccess, writableFields } from '../access.js';
import { useApi } from '../hooks.js';
import { minifyJson, objectMembers, objectText, prettyJson } from '../json-text.js';
import { apiText } from '../raw-api.js';
import { navigate } from '../router.js';
import './records.css';

/** The members to send: for an insert all of them, for an edit those whose text changed. */
function membersToSend(text: string, original: Map<string, string> | undefined) {
  const members = objectMembers(text);
  if (!original) return { send: members, removed: [] as string[] };
  const send = new Map([...members].filter(([k, v]) => original.get(k) !== v));
  const removed = [...original.keys()].filter((k) => !members.has(k));
  return { send, removed };
}

export function RecordEditor({
  collection,
  id,
  initial,
  original,
  onDone,
}: {
  collection: string;
  /** The record being edited; undefined for an insert. */
  id?: string;
  initial: string;
  /** The record's members as stored (edit only), to send only what changed. */
  original?: Map<string, string>;
  onDone: (id: string) => void;
}) {
  const access = useAccess();
  const canWrite = canUseCollection(access, collection, 'write');
  const writable = writableFields(access, collection);
  const [text, setText] = useState(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const broken = jsonProblem(text) !== undefined;

  const save = async () => {
    setError(null);
    setErrors({});
    setNote('');
    let plan: ReturnType<typeof membersToSend>;
    try {
      plan = membersToSend(text, original);
    } catch {
      setError(new Error('A record is a JSON object: { "field": value, ... }'));
      return;
    }
    const outside = writable ? [...plan.send.keys()].filter((k) => k !== 'id' && !writable.includes(k)) : [];
    if (outside.length) {
      setErrors(Object.fromEntries(outside.map((k) => [k, 'this API key may not write this field'])));
      return;
    }
    if (plan.removed.length)
      setNote(`An update merges: ${plan.removed.join(', ')} stays as stored. Set a member to null to clear it.`);
    if (id && plan.send.size === 0) {
      if (!plan.removed.length) setNote('Nothing changed.');
      return;
    }
    setBusy(true);
    try {
      const body = objectText(plan.send);
      if (id) {
        await apiText('PUT', `/api/update/${enc(collection)}/${enc(id)}`, body);
        onDone(id);
      } else {
        const answer = JSON.parse(await apiText('POST', `/api/insert/${enc(collection)}`, body)) as { id: string };
        onDone(answer.id);
      }
    } catch (err) {
      setErrors(fieldErrors(err));
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="card record-editor"
      aria-label={id ? `Edit ${id}` : 'New record'}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      {writable && (
        <p class="note" data-testid="writable-fields">
          This key may write only these fields:{' '}
          {writable.map((f) => (
            <code key={f}>{f} </code>
          ))}
        </p>
      )}
      <p class="muted small">
        Typed values are written <code>{'{"type": "Decimal", "value": "1.50"}'}</code>; bare JSON works too (an RFC 3339
        string becomes a DateTime). {id ? 'Only the members you change are sent.' : ''}
      </p>
      <JsonEditor
        id="record-json"
        label={id ? `Record ${id} as JSON (without its id)` : 'New record as JSON'}
        value={text}
        onInput={setText}
        errors={errors}
        rows={Math.min(30, Math.max(8, initial.split('\n').length + 1))}
      />
      <ErrorBox error={error} />
      {note && (
        <p class="note" role="status">
          {note}
        </p>
      )}
      <div class="actions">
        <button
          type="submit"
          disabled={broken || busy || !canWrite}
          title={access && !canWrite ? NOT_ALLOWED : undefined}
        >
          {busy ? 'Saving…' : id ? 'Save changes' : 'Insert'}
        </button>
        <a
          class="button secondary"
          href={id ? `/collections/${enc(collection)}/records/${enc(id)}` : `/collections/${enc(collection)}`}
        >
          Cancel
        </a>
      </div>
    </form>
  );
}

/** The editor's text for a record as stored: its members without the id, laid out. */
export function editableText(recordText: string): { text: string; members: Map<string, string> } {
  const members = objectMembers(recordText);
  members.delete('id');
  return { text: prettyJson(objectText(members)), members };
}

interface SchemaField {
  field_type?: string;
  default?: unknown;
}

/** A starting record from the schema: each field with its default, or an empty value of its type. */
function template(fields: Record<string, SchemaField> | undefined, writable: string[] | undefined): string {
  const empty: Record<string, unknown> = {
    String: '',
    Integer: 0,
    Float: 0,
    Number: 0,
    Boolean: false,
    Array: [],
    Object: {},
    Set: { type: 'Set', value: [] },
    Vector: { type: 'Vector', value: [] },
    DateTime: new Date().toISOString(),
    Decimal: { type: 'Decimal', value: '0' },
  };
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(fields ?? {}))
    if (!writable || writable.includes(name))
      out[name] = f.default ?? (f.field_type && f.field_type in empty ? empty[f.field_type] : null);
  return prettyJson(minifyJson(JSON.stringify(out)));
}

/** The insert page: the editor started from the collection's schema. */
export function NewRecord({ collection }: { collection: string }) {
  const access = useAccess();
  const writable = writableFields(access, collection);
  const info = useApi<{ collection?: { fields?: Record<string, SchemaField> } }>(`/api/collections/${enc(collection)}`);
  return (
    <main id="main" class="records-page">
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/collections">Collections</a> / <a href={`/collections/${enc(collection)}`}>{collection}</a> /{' '}
        <span>New record</span>
      </nav>
      <h1>New record in {collection}</h1>
      {(info.loading || !access) && <Loading what="the schema" />}
      {!info.loading && access && (
        <RecordEditor
          collection={collection}
          initial={template(info.data?.collection?.fields, writable)}
          onDone={(id) => navigate(`/collections/${enc(collection)}/records/${enc(id)}`)}
        />
      )}
    </main>
  );
}
