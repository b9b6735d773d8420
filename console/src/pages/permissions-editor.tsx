/**
 * The editor of a key's rights: name, admin flag, per-collection grants (read, write, writable fields, the `*`
 * entry), the key-value grant (read, write, prefixes) and the rate limit, with controls rather than JSON. The body
 * it will send is shown beside it.
 */
import { requestBody, type CollectionRow, type Rights } from './key-rights.js';

export function PermissionsEditor({
  id,
  value,
  onChange,
  collectionNames = [],
  disabledReason,
}: {
  /** Prefix of the element ids (two editors may share a page). */
  id: string;
  value: Rights;
  onChange: (next: Rights) => void;
  /** The collections to suggest in the grant rows. */
  collectionNames?: string[];
  /** Why nothing may be changed; set, every control is disabled with this title. */
  disabledReason?: string;
}) {
  const off = disabledReason !== undefined;
  const set = (patch: Partial<Rights>) => onChange({ ...value, ...patch });
  const setRow = (i: number, patch: Partial<CollectionRow>) =>
    set({ collections: value.collections.map((r, j) => (j === i ? { ...r, ...patch } : r)) });
  const addRow = (collection: string) =>
    set({ collections: [...value.collections, { collection, read: true, write: false, fields: '' }] });
  const hasStar = value.collections.some((r) => r.collection.trim() === '*');
  const grantsOff = off || value.admin;
  const grantsTitle = off ? disabledReason : value.admin ? 'An admin key may do everything' : undefined;
  return (
    <div class="rights" title={off ? disabledReason : undefined}>
      <fieldset disabled={off}>
        <legend>Key</legend>
        <label for={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          maxLength={200}
          value={value.name}
          placeholder="key"
          onInput={(e) => set({ name: e.currentTarget.value })}
        />
        <label class="check">
          <input type="checkbox" checked={value.admin} onChange={(e) => set({ admin: e.currentTarget.checked })} />
          Admin: may do everything, including keys, collections and configuration
        </label>
      </fieldset>

      {value.admin && (
        <p class="muted small" data-testid="admin-note">
          An admin key may do everything: the grants below do not apply to it.
        </p>
      )}
      <fieldset disabled={grantsOff} title={grantsTitle}>
        <legend>Collections</legend>
        <div class="row" role="radiogroup" aria-label="Which collections">
          <label class="check">
            <input
              type="radio"
              name={`${id}-scope`}
              checked={!value.limitCollections}
              onChange={() => set({ limitCollections: false })}
            />
            Every collection, read and write
          </label>
          <label class="check">
            <input
              type="radio"
              name={`${id}-scope`}
              checked={value.limitCollections}
              onChange={() => set({ limitCollections: true })}
            />
            Only the collections listed
          </label>
        </div>
        {value.limitCollections && (
          <>
            {value.collections.length === 0 && (
              <p class="muted small">No collection granted: this key may not use any collection.</p>
            )}
            <ul class="grants">
              {value.collections.map((row, i) => {
                const n = i + 1;
                const star = row.collection.trim() === '*';
                return (
                  <li key={i} class="grant" data-grant={row.collection}>
                    <input
                      aria-label={`Collection of grant ${n}`}
                      list={`${id}-collections`}
                      placeholder="collection or *"
                      value={row.collection}
                      onInput={(e) => setRow(i, { collection: e.currentTarget.value })}
                    />
                    <label class="check">
                      <input
                        type="checkbox"
                        checked={row.read}
                        aria-label={`Read (grant ${n})`}
                        onChange={(e) => setRow(i, { read: e.currentTarget.checked })}
                      />
                      Read
                    </label>
                    <label class="check">
                      <input
                        type="checkbox"
                        checked={row.write}
                        aria-label={`Write (grant ${n})`}
                        onChange={(e) => setRow(i, { write: e.currentTarget.checked })}
                      />
                      Write
                    </label>
                    <input
                      class="fields"
                      aria-label={`Writable fields (grant ${n}), comma-separated; empty: every field`}
                      placeholder="writable fields: every field"
                      disabled={!row.write}
                      title={row.write ? undefined : 'Only a grant that may write has writable fields'}
                      value={row.fields}
                      onInput={(e) => setRow(i, { fields: e.currentTarget.value })}
                    />
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Remove grant ${n}`}
                      title={grantsTitle}
                      onClick={() => set({ collections: value.collections.filter((_, j) => j !== i) })}
                    >
                      Remove
                    </button>
                    {star && <span class="muted small">* applies to every collection not listed by name</span>}
                  </li>
                );
              })}
            </ul>
            <datalist id={`${id}-collections`}>
              {collectionNames.map((c) => (
                <option key={c} value={c} />
              ))}
            </datalist>
            <div class="actions">
              <button type="button" class="secondary" title={grantsTitle} onClick={() => addRow('')}>
                Add collection
              </button>
              <button
                type="button"
                class="secondary"
                disabled={grantsOff || hasStar}
                title={grantsTitle ?? (hasStar ? 'The * entry is already listed' : undefined)}
                onClick={() => addRow('*')}
              >
                Add * (every other collection)
              </button>
            </div>
          </>
        )}
      </fieldset>

      <fieldset disabled={grantsOff} title={grantsTitle}>
        <legend>Key-value store</legend>
        <div class="row">
          <label class="check">
            <input type="checkbox" checked={value.kvRead} onChange={(e) => set({ kvRead: e.currentTarget.checked })} />
            Read
          </label>
          <label class="check">
            <input
              type="checkbox"
              checked={value.kvWrite}
              onChange={(e) => set({ kvWrite: e.currentTarget.checked })}
            />
            Write
          </label>
        </div>
        <label for={`${id}-prefixes`}>Key prefixes, one a line (empty: every key)</label>
        <textarea
          id={`${id}-prefixes`}
          rows={3}
          spellcheck={false}
          value={value.kvPrefixes}
          onInput={(e) => set({ kvPrefixes: e.currentTarget.value })}
        />
      </fieldset>

      <fieldset disabled={off}>
        <legend>Rate limit</legend>
        <label for={`${id}-rate`}>Requests per window (empty or 0: no per-key quota)</label>
        <input
          id={`${id}-rate`}
          type="number"
          min={0}
          step={1}
          inputMode="numeric"
          value={value.rateLimit}
          onInput={(e) => set({ rateLimit: e.currentTarget.value })}
        />
      </fieldset>

      <details class="body-preview">
        <summary>The request body</summary>
        <pre class="json" data-testid="rights-body">
          {JSON.stringify(requestBody(value), null, 2)}
        </pre>
      </details>
    </div>
  );
}
