/**
 * The schema as JSON, for people who would rather type it: `{"fields": {...}}` with only the members that are set.
 * Saving sends PUT /api/schemas/{c} `{fields}` with each field's whole definition, and null for each field taken
 * out of the text; the server's complaints show at the field they name.
 */
import { useState } from 'preact/hooks';
import { api, enc, fieldErrors } from '../api.js';
import { ErrorBox, JsonEditor, jsonProblem } from '../components.js';
import { compactDefinition, type SchemaWire } from '../schema-model.js';
import type { SettingsProps } from './collection-shared.js';

function schemaText(schema: SchemaWire): string {
  const fields: Record<string, unknown> = {};
  for (const name of Object.keys(schema.fields).sort()) fields[name] = compactDefinition(schema.fields[name]!);
  return JSON.stringify({ fields }, null, 2);
}

export function SchemaJson({ collection, schema, reloadSchema, locked }: SettingsProps) {
  const [text, setText] = useState(() => schemaText(schema));
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState('');
  const [busy, setBusy] = useState(false);

  const save = async () => {
    const parsed = JSON.parse(text) as { fields?: unknown };
    const fields = parsed && typeof parsed === 'object' ? parsed.fields : undefined;
    if (!fields || typeof fields !== 'object' || Array.isArray(fields)) {
      setError(new Error('The text must be an object such as {"fields": {"name": {"field_type": "String"}}}'));
      return;
    }
    const change: Record<string, unknown> = { ...(fields as Record<string, unknown>) };
    for (const name of Object.keys(schema.fields)) if (!Object.hasOwn(change, name)) change[name] = null;
    setBusy(true);
    setError(null);
    setSaved('');
    try {
      const answer = await api<{ version: number }>('PUT', `/api/schemas/${enc(collection)}`, { fields: change });
      setSaved(`Saved: schema version ${answer.version}.`);
      reloadSchema();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="json-heading" class="schema-json">
      <h2 id="json-heading" class="small">
        Schema as JSON <span class="muted">(version {schema.version})</span>
      </h2>
      <p class="muted small">
        Each field listed replaces that field&rsquo;s definition; a field taken out of the text is removed from the
        schema. Types: String, Integer, Float, Number, Boolean, Array, Object, DateTime, Decimal, UUID, Vector, Set,
        Binary, Bytes, Duration, Null.
      </p>
      <JsonEditor
        id="schema-json"
        label="Schema"
        value={text}
        onInput={(t) => {
          setText(t);
          setSaved('');
        }}
        errors={fieldErrors(error)}
        rows={18}
        readOnly={locked !== undefined}
      />
      <ErrorBox error={error} />
      <p role="status" class="notice">
        {saved}
      </p>
      <div class="actions">
        <button
          type="button"
          disabled={locked !== undefined || busy || jsonProblem(text) !== undefined}
          title={locked}
          onClick={() => void save()}
        >
          Save schema
        </button>
        <button type="button" class="secondary" onClick={() => setText(schemaText(schema))}>
          Reset to the saved schema
        </button>
      </div>
    </section>
  );
}
