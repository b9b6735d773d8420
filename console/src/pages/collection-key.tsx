/**
 * The primary-key alias (PUT /api/schemas/{c}/primary-key-alias `{alias}`): the field an insert takes as the
 * record's id, whose value reads also accept as the id.
 */
import { useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { ErrorBox } from '../components.js';
import type { SettingsProps } from './collection-shared.js';

export function PrimaryKeyAlias({ collection, schema, reloadSchema, locked }: SettingsProps) {
  const current = schema.primary_key_alias ?? 'id';
  const [alias, setAlias] = useState(current);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState('');
  const [busy, setBusy] = useState(false);

  const save = async (e: Event) => {
    e.preventDefault();
    if (locked || !alias.trim()) return;
    setBusy(true);
    setError(null);
    setSaved('');
    try {
      await api('PUT', `/api/schemas/${enc(collection)}/primary-key-alias`, { alias: alias.trim() });
      setSaved(`The primary key is now ${alias.trim()}.`);
      reloadSchema();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" onSubmit={(e) => void save(e)} aria-labelledby="alias-heading">
      <h2 id="alias-heading" class="small">
        Primary-key alias
      </h2>
      <dl class="facts">
        <dt>Current</dt>
        <dd data-testid="primary-key-alias">
          <code>{current}</code>
        </dd>
      </dl>
      <p class="muted small">
        With an alias, an insert takes the alias field&rsquo;s value as the record&rsquo;s id, and reads accept that
        value as the id. <code>id</code> is the default. Letters, digits and <code>_</code>.
      </p>
      <div class="row">
        <label for="alias">Alias field</label>
        <input
          id="alias"
          value={alias}
          required
          autocomplete="off"
          list="alias-field-names"
          disabled={locked !== undefined}
          title={locked}
          aria-describedby={error ? 'alias-error' : undefined}
          aria-invalid={error ? true : undefined}
          onInput={(e) => setAlias(e.currentTarget.value)}
        />
        <datalist id="alias-field-names">
          {Object.keys(schema.fields).map((f) => (
            <option key={f} value={f} />
          ))}
        </datalist>
        <button type="submit" disabled={locked !== undefined || busy || alias.trim() === current} title={locked}>
          Set alias
        </button>
      </div>
      <div id="alias-error">
        <ErrorBox error={error} />
      </div>
      <p role="status" class="notice">
        {saved}
      </p>
    </form>
  );
}
