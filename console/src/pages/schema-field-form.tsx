/**
 * The form for one field of a schema: its type, required and unique, a default, and the options its type allows
 * (length or value bounds, a regex, allowed values, the UUID format, an index with its settings). Saved whole
 * through PUT /api/schemas/{c} `{fields: {name: definition}}`; the server's complaint is shown at the box it is
 * about (found from the words of its message), with the request id below.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, enc, fieldErrors } from '../api.js';
import { ErrorBox } from '../components.js';
import {
  boundLabel,
  definitionOf,
  FIELD_TYPES,
  indexKindsFor,
  OPTIONS_BY_TYPE,
  VECTOR_ALGORITHMS,
  VECTOR_METRICS,
  type FieldDraft,
  type FieldType,
  type IndexKind,
} from '../schema-model.js';

type Box = 'name' | 'field_type' | 'default' | 'min' | 'max' | 'regex' | 'enums' | 'format' | 'index';

/** Which box a schema error is about, from its words; the type box when none is named. */
function boxOf(message: string): Box {
  const m = message.replace(/^Field '[^']*':\s*/, '');
  if (/^default|\.default/.test(m)) return 'default';
  if (/regex|pattern/.test(m)) return 'regex';
  if (/enums/.test(m)) return 'enums';
  if (/^min|\.min|^max|\.max|min .* greater than max/.test(m)) return /^max|\.max/.test(m) ? 'max' : 'min';
  if (/format/.test(m)) return 'format';
  if (/index/.test(m)) return 'index';
  if (/name/i.test(m) && !/field_type/.test(m)) return 'name';
  return 'field_type';
}

/** A labelled box, with the server's message under it when the message is about this box. */
function Labelled({
  box,
  label,
  hint,
  error,
  children,
}: {
  box: Box;
  label: string;
  hint?: string;
  error?: string;
  children: ComponentChildren;
}) {
  const id = `field-${box}`;
  return (
    <div class="field" data-box={box}>
      <label for={id}>{label}</label>
      {children}
      {hint && (
        <small id={`${id}-hint`} class="muted">
          {hint}
        </small>
      )}
      {error && (
        <p id={`${id}-error`} class="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

const INDEX_LABELS: Record<IndexKind, string> = {
  '': 'None',
  btree: 'B-tree (equality, ranges, sorts)',
  hash: 'Hash (equality)',
  text: 'Text search (BM25)',
  vector: 'Vector search (nearest neighbours)',
};

export function FieldForm({
  collection,
  initial,
  isNew,
  locked,
  onDone,
}: {
  collection: string;
  initial: FieldDraft;
  isNew: boolean;
  locked: string | undefined;
  /** Called with the saved field's name, or undefined on cancel. */
  onDone: (saved: string | undefined) => void;
}) {
  const [d, setD] = useState<FieldDraft>(initial);
  const form = useRef<HTMLFormElement>(null);
  // Opened from a button elsewhere on the page: bring the form into view and put the focus in its first box.
  useEffect(() => {
    form.current?.scrollIntoView({ block: 'nearest' });
    form.current?.querySelector<HTMLElement>('input, select')?.focus();
  }, []);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof FieldDraft>(key: K, value: FieldDraft[K]) => setD((s) => ({ ...s, [key]: value }));
  const allowed = OPTIONS_BY_TYPE[d.field_type];
  const id = (box: string) => `field-${box}`;
  const messages = fieldErrors(error);
  const message = messages[d.name.trim()] ?? Object.values(messages)[0];
  const errorBox = message ? boxOf(message) : undefined;
  const readOnly = locked !== undefined;

  const errorAt = (box: Box) => (errorBox === box ? message : undefined);
  const described = (box: Box, hint = false) => ({
    'aria-invalid': errorBox === box ? true : undefined,
    'aria-describedby':
      [hint ? `${id(box)}-hint` : '', errorBox === box ? `${id(box)}-error` : ''].filter(Boolean).join(' ') ||
      undefined,
  });

  const save = async (e: Event) => {
    e.preventDefault();
    const name = d.name.trim();
    if (readOnly || !name) return;
    setBusy(true);
    setError(null);
    try {
      await api('PUT', `/api/schemas/${enc(collection)}`, { fields: { [name]: definitionOf(d) } });
      onDone(name);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form ref={form} class="card field-form" onSubmit={(e) => void save(e)} aria-labelledby="field-form-heading">
      <h2 id="field-form-heading" class="small">
        {isNew ? 'New field' : `Field ${d.name}`}
      </h2>
      <fieldset disabled={readOnly} title={locked}>
        <legend class="visually-hidden">Definition</legend>
        <div class="field-grid">
          {isNew && (
            <Labelled box="name" error={errorAt('name')} label="Name">
              <input
                id={id('name')}
                value={d.name}
                required
                autocomplete="off"
                onInput={(e) => set('name', e.currentTarget.value)}
                {...described('name')}
              />
            </Labelled>
          )}
          <Labelled box="field_type" error={errorAt('field_type')} label="Type">
            <select
              id={id('field_type')}
              value={d.field_type}
              onChange={(e) => set('field_type', e.currentTarget.value as FieldType)}
              {...described('field_type')}
            >
              {FIELD_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </Labelled>
          <div class="field checks">
            <label class="check">
              <input type="checkbox" checked={d.required} onChange={(e) => set('required', e.currentTarget.checked)} />
              Required
            </label>
            <label class="check">
              <input type="checkbox" checked={d.unique} onChange={(e) => set('unique', e.currentTarget.checked)} />
              Unique
            </label>
          </div>
          <Labelled
            box="default"
            error={errorAt('default')}
            label="Default"
            hint={d.field_type === 'String' ? 'Text as typed' : 'JSON for lists, objects and numbers'}
          >
            <input
              id={id('default')}
              value={d.default}
              onInput={(e) => set('default', e.currentTarget.value)}
              {...described('default', true)}
            />
          </Labelled>
          {allowed.includes('min') && (
            <Labelled box="min" error={errorAt('min')} label={boundLabel(d.field_type, 'min')}>
              <input
                id={id('min')}
                value={d.min}
                onInput={(e) => set('min', e.currentTarget.value)}
                {...described('min')}
              />
            </Labelled>
          )}
          {allowed.includes('max') && (
            <Labelled box="max" error={errorAt('max')} label={boundLabel(d.field_type, 'max')}>
              <input
                id={id('max')}
                value={d.max}
                onInput={(e) => set('max', e.currentTarget.value)}
                {...described('max')}
              />
            </Labelled>
          )}
          {allowed.includes('regex') && (
            <Labelled
              box="regex"
              error={errorAt('regex')}
              label="Pattern (regex)"
              hint="Searched, not anchored: use ^ and $ for the whole text"
            >
              <input
                id={id('regex')}
                class="mono"
                value={d.regex}
                spellcheck={false}
                onInput={(e) => set('regex', e.currentTarget.value)}
                {...described('regex', true)}
              />
            </Labelled>
          )}
          {allowed.includes('enums') && (
            <Labelled
              box="enums"
              error={errorAt('enums')}
              label="Allowed values"
              hint="One per line; empty allows any value"
            >
              <textarea
                id={id('enums')}
                rows={3}
                value={d.enums}
                onInput={(e) => set('enums', e.currentTarget.value)}
                {...described('enums', true)}
              />
            </Labelled>
          )}
          {allowed.includes('format') && (
            <Labelled box="format" error={errorAt('format')} label="Format">
              <select
                id={id('format')}
                value={d.format}
                onChange={(e) => set('format', e.currentTarget.value === 'rfc4122' ? 'rfc4122' : '')}
                {...described('format')}
              >
                <option value="">Any 8-4-4-4-12 letters and digits</option>
                <option value="rfc4122">Strict RFC 4122</option>
              </select>
            </Labelled>
          )}
          <Labelled box="index" error={errorAt('index')} label="Index">
            <select
              id={id('index')}
              value={d.index}
              onChange={(e) => set('index', e.currentTarget.value as IndexKind)}
              {...described('index')}
            >
              {indexKindsFor(d.field_type).map((k) => (
                <option key={k} value={k}>
                  {INDEX_LABELS[k]}
                </option>
              ))}
            </select>
          </Labelled>
          {d.index === 'text' && (
            <>
              <div class="field">
                <label for="field-language">Text language</label>
                <input id="field-language" value={d.language} onInput={(e) => set('language', e.currentTarget.value)} />
              </div>
              <div class="field">
                <label for="field-analyzer">Text analyzer</label>
                <input id="field-analyzer" value={d.analyzer} onInput={(e) => set('analyzer', e.currentTarget.value)} />
              </div>
            </>
          )}
          {d.index === 'vector' && <VectorOptions d={d} set={set} />}
        </div>
      </fieldset>
      <ErrorBox error={error} />
      <div class="actions">
        <button type="submit" disabled={readOnly || busy || !d.name.trim()} title={locked}>
          {isNew ? 'Add field' : 'Save field'}
        </button>
        <button type="button" class="secondary" onClick={() => onDone(undefined)}>
          {readOnly ? 'Close' : 'Cancel'}
        </button>
      </div>
    </form>
  );
}

/** The settings of a vector index: algorithm, metric, HNSW's m and ef_construction, the dimensions. */
function VectorOptions({
  d,
  set,
}: {
  d: FieldDraft;
  set: <K extends keyof FieldDraft>(key: K, value: FieldDraft[K]) => void;
}) {
  return (
    <>
      <div class="field">
        <label for="field-algorithm">Algorithm</label>
        <select id="field-algorithm" value={d.algorithm} onChange={(e) => set('algorithm', e.currentTarget.value)}>
          <option value="">Server default (hnsw)</option>
          {VECTOR_ALGORITHMS.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="field-metric">Metric</label>
        <select id="field-metric" value={d.metric} onChange={(e) => set('metric', e.currentTarget.value)}>
          <option value="">Server default (cosine)</option>
          {VECTOR_METRICS.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
      </div>
      {(['m', 'ef_construction', 'dimensions'] as const).map((key) => (
        <div class="field" key={key}>
          <label for={`field-${key}`}>
            {key === 'm' ? 'm (links per node)' : key === 'ef_construction' ? 'ef_construction' : 'Dimensions'}
          </label>
          <input
            id={`field-${key}`}
            inputMode="numeric"
            value={d[key]}
            onInput={(e) => set(key, e.currentTarget.value)}
          />
        </div>
      ))}
    </>
  );
}
