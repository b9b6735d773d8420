/**
 * The form that creates a collection (POST /api/collections/{c}), empty or with a schema written as JSON
 * (`{"fields": {...}}`); the server's complaints about the schema are shown at the field they name.
 */
import { useState } from 'preact/hooks';
import { api, enc, fieldErrors } from '../api.js';
import { ErrorBox, JsonEditor, jsonProblem } from '../components.js';

const EXAMPLE = `{
  "fields": {
    "name": { "field_type": "String", "required": true },
    "age": { "field_type": "Integer", "min": 0 }
  }
}`;

export function CreateCollection({
  disabled,
  title,
  onCreated,
}: {
  disabled: boolean;
  /** Why the form is disabled, when it is. */
  title?: string;
  onCreated: (name: string) => void;
}) {
  const [name, setName] = useState('');
  const [withSchema, setWithSchema] = useState(false);
  const [schema, setSchema] = useState(EXAMPLE);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const byField = fieldErrors(error);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (disabled || !name.trim() || (withSchema && jsonProblem(schema))) return;
    setBusy(true);
    setError(null);
    try {
      const body = withSchema ? (JSON.parse(schema) as unknown) : undefined;
      await api('POST', `/api/collections/${enc(name.trim())}`, body);
      onCreated(name.trim());
      setName('');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card create-collection" onSubmit={(e) => void submit(e)} aria-labelledby="create-heading">
      <h2 id="create-heading" class="small">
        New collection
      </h2>
      <div class="row">
        <label for="new-collection">Name</label>
        <input
          id="new-collection"
          value={name}
          required
          autocomplete="off"
          disabled={disabled}
          title={title}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <label class="check">
          <input
            type="checkbox"
            checked={withSchema}
            disabled={disabled}
            onChange={(e) => setWithSchema(e.currentTarget.checked)}
          />
          With a schema
        </label>
        <button type="submit" disabled={disabled || busy || !name.trim()} title={title}>
          Create collection
        </button>
      </div>
      {withSchema && (
        <JsonEditor
          id="new-schema"
          label="Schema (JSON)"
          value={schema}
          onInput={setSchema}
          errors={byField}
          rows={8}
        />
      )}
      <ErrorBox error={error} />
    </form>
  );
}
