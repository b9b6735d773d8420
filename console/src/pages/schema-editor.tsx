/**
 * The schema's fields: a table of every field with its type, constraints and index, a form to add a field or
 * edit one (the field being edited lives in the URL: `?field=name`, or `?field=` plus `new=1` to add), and remove
 * with confirmation. Each save is PUT /api/schemas/{c} `{fields: {name: definition}}`.
 */
import { useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { ConfirmButton, ErrorBox } from '../components.js';
import { navigate } from '../router.js';
import { draftOf, emptyDraft, type FieldWire } from '../schema-model.js';
import { settingsHref, type SettingsProps } from './collection-shared.js';
import { FieldForm } from './schema-field-form.js';

/** A short text of a field's constraints for the table. */
function constraintsText(def: FieldWire): string {
  const parts: string[] = [];
  if (def.required) parts.push('required');
  if (def.unique) parts.push('unique');
  const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  if (def.default !== null && def.default !== undefined) parts.push(`default ${show(def.default)}`);
  if (def.min !== null && def.min !== undefined) parts.push(`min ${show(def.min)}`);
  if (def.max !== null && def.max !== undefined) parts.push(`max ${show(def.max)}`);
  if (def.regex) parts.push(`regex /${def.regex}/`);
  if (def.enums?.length) parts.push(`one of ${def.enums.map(show).join(', ')}`);
  if (def.format) parts.push(`format ${def.format}`);
  return parts.join(' · ') || '—';
}

function indexText(def: FieldWire): string {
  const idx = def.index;
  if (!idx) return '—';
  const extra = Object.entries(idx)
    .filter(([k]) => k !== 'type')
    .map(([k, v]) => `${k} ${String(v)}`);
  return extra.length ? `${idx.type} (${extra.join(', ')})` : idx.type;
}

export function SchemaEditor({ collection, schema, reloadSchema, locked, query }: SettingsProps) {
  const [error, setError] = useState<unknown>(null);
  const names = Object.keys(schema.fields).sort();
  const editing = query.get('field');
  const adding = query.get('new') === '1';
  const here = settingsHref(collection);
  const edit = (field: string | null) =>
    navigate(field === null ? here : field === '' ? `${here}?new=1` : `${here}?field=${enc(field)}`);

  const remove = async (name: string) => {
    setError(null);
    try {
      await api('PUT', `/api/schemas/${enc(collection)}`, { fields: { [name]: null } });
      reloadSchema();
    } catch (err) {
      setError(err);
    }
  };

  const current = editing !== null && Object.hasOwn(schema.fields, editing) ? schema.fields[editing] : undefined;
  return (
    <section aria-labelledby="fields-heading">
      <div class="row between">
        <h2 id="fields-heading" class="small">
          Fields <span class="muted">(schema version {schema.version})</span>
        </h2>
        <button type="button" disabled={locked !== undefined} title={locked} onClick={() => edit('')}>
          Add field
        </button>
      </div>
      <p class="muted small">
        Schemas are open: records may carry fields not listed here. A change checks later writes only; stored records
        are not checked again.
      </p>
      <ErrorBox error={error} />
      {adding && (
        <FieldForm
          key="new"
          collection={collection}
          initial={emptyDraft()}
          isNew
          locked={locked}
          onDone={(saved) => {
            if (saved) reloadSchema();
            edit(null);
          }}
        />
      )}
      {names.length === 0 ? (
        <p class="muted">No fields declared: any record is accepted.</p>
      ) : (
        <div class="scroll">
          <table class="data schema-fields">
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Type</th>
                <th scope="col">Constraints</th>
                <th scope="col">Index</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {names.map((name) => {
                const def = schema.fields[name]!;
                return (
                  <tr key={name} data-field={name} aria-current={editing === name ? 'true' : undefined}>
                    <th scope="row">
                      <code>{name}</code>
                      {name === schema.primary_key_alias && name !== 'id' && <span class="type">key</span>}
                    </th>
                    <td>{def.field_type}</td>
                    <td class="wrap">{constraintsText(def)}</td>
                    <td class="wrap">{indexText(def)}</td>
                    <td>
                      <div class="row-actions">
                        <button type="button" class="secondary" onClick={() => edit(name)}>
                          {locked ? 'View' : 'Edit'} <span class="visually-hidden">{name}</span>
                        </button>
                        <ConfirmButton
                          label={`Remove ${name}`}
                          question={
                            `Remove field ${name} from the schema? Stored values stay in the records; ` +
                            'later writes are no longer checked for it.'
                          }
                          confirmLabel="Remove field"
                          disabled={locked !== undefined}
                          title={locked}
                          onConfirm={() => remove(name)}
                        />
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {current && editing !== null && (
        <FieldForm
          key={`edit-${editing}-${schema.version}`}
          collection={collection}
          initial={draftOf(editing, current)}
          isNew={false}
          locked={locked}
          onDone={(saved) => {
            if (saved) reloadSchema();
            edit(null);
          }}
        />
      )}
      {editing !== null && !current && !adding && <p class="muted">There is no field {editing} in this schema.</p>}
    </section>
  );
}
