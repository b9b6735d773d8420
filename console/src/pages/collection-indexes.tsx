/**
 * A collection's indexes: the query indexes (GET/POST/DELETE /api/indexes/query/{c}: btree or hash, from an admin
 * or from the schema) with a form to create one and drop, and the search indexes the schema declares (text and
 * vector, configured by a field's `index`) with their build state from the admin health report.
 */
import { useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { ConfirmButton, ErrorBox, Loading } from '../components.js';
import { useApi } from '../hooks.js';
import { settingsHref, type SettingsProps } from './collection-shared.js';

interface QueryIndex {
  field: string;
  type: 'btree' | 'hash';
  source: 'admin' | 'schema';
  entries: number;
}

interface IndexBuild {
  collection: string;
  kind: 'vector' | 'text';
  field: string;
  state: string;
  indexed?: number;
  total?: number;
  note?: string;
}

export function CollectionIndexes({ collection, schema, reloadSchema, locked }: SettingsProps) {
  const list = useApi<{ indexes: QueryIndex[] }>(locked ? null : `/api/indexes/query/${enc(collection)}`);
  const health = useApi<{ indexes?: IndexBuild[] }>(locked ? null : '/api/health');
  const [field, setField] = useState('');
  const [type, setType] = useState<'btree' | 'hash'>('btree');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const create = async (e: Event) => {
    e.preventDefault();
    if (locked || !field.trim()) return;
    setBusy(true);
    setError(null);
    try {
      await api('POST', `/api/indexes/query/${enc(collection)}`, { field: field.trim(), type });
      setField('');
      list.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const drop = async (name: string) => {
    setError(null);
    try {
      await api('DELETE', `/api/indexes/query/${enc(collection)}/${enc(name)}`);
      list.reload();
      reloadSchema();
    } catch (err) {
      setError(err);
    }
  };

  const search = Object.entries(schema.fields).filter(
    ([, def]) => def.index?.type === 'text' || def.index?.type === 'vector',
  );
  const builds = (health.data?.indexes ?? []).filter((b) => b.collection === collection);

  return (
    <>
      <section aria-labelledby="query-indexes-heading" class="card">
        <h2 id="query-indexes-heading" class="small">
          Query indexes
        </h2>
        <p class="muted small">
          Equality, In and range conditions on an indexed field use the index; results are the same without one. B-tree
          also serves ranges and sorts, hash only equality.
        </p>
        {locked && <p class="muted">{locked}: only an admin key may list or change indexes.</p>}
        <ErrorBox error={list.error ?? error} />
        {list.loading && !list.data && <Loading what="indexes" />}
        {list.data && list.data.indexes.length === 0 && <p class="muted">No query indexes.</p>}
        {list.data && list.data.indexes.length > 0 && (
          <div class="scroll">
            <table class="data query-indexes">
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Type</th>
                  <th scope="col">From</th>
                  <th scope="col" class="num">
                    Entries
                  </th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.data.indexes.map((ix) => (
                  <tr key={ix.field} data-index={ix.field}>
                    <th scope="row">
                      <code>{ix.field}</code>
                    </th>
                    <td>{ix.type}</td>
                    <td>
                      {ix.source === 'schema' ? (
                        <a href={`${settingsHref(collection)}?field=${enc(ix.field)}`}>the schema</a>
                      ) : (
                        'an admin'
                      )}
                    </td>
                    <td class="num">{ix.entries.toLocaleString('en')}</td>
                    <td>
                      <ConfirmButton
                        label={`Drop index on ${ix.field}`}
                        question={
                          `Drop the ${ix.type} index on ${ix.field}? ` +
                          'Queries keep their results but scan the collection instead.'
                        }
                        confirmLabel="Drop index"
                        onConfirm={() => drop(ix.field)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <form class="row index-form" onSubmit={(e) => void create(e)}>
          <label for="index-field">Field</label>
          <input
            id="index-field"
            value={field}
            required
            autocomplete="off"
            list="index-field-names"
            disabled={locked !== undefined}
            title={locked}
            onInput={(e) => setField(e.currentTarget.value)}
          />
          <datalist id="index-field-names">
            {Object.keys(schema.fields).map((f) => (
              <option key={f} value={f} />
            ))}
          </datalist>
          <label for="index-type">Type</label>
          <select
            id="index-type"
            value={type}
            disabled={locked !== undefined}
            onChange={(e) => setType(e.currentTarget.value === 'hash' ? 'hash' : 'btree')}
          >
            <option value="btree">B-tree</option>
            <option value="hash">Hash</option>
          </select>
          <button type="submit" disabled={locked !== undefined || busy || !field.trim()} title={locked}>
            Create index
          </button>
        </form>
      </section>
      <section aria-labelledby="search-indexes-heading" class="card">
        <h2 id="search-indexes-heading" class="small">
          Search indexes
        </h2>
        <p class="muted small">
          Text (BM25) and vector (nearest-neighbour) indexes are declared by a field&rsquo;s index in the schema: edit
          the field under <a href={settingsHref(collection)}>Fields</a>. A vector field without one is searched with
          cosine HNSW.
        </p>
        {search.length === 0 ? (
          <p class="muted">The schema declares no text or vector index.</p>
        ) : (
          <div class="scroll">
            <table class="data search-indexes">
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Settings</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {search.map(([name, def]) => {
                  const { type: kind, ...settings } = def.index!;
                  const build = builds.find((b) => b.field === name && b.kind === kind);
                  const shown = Object.entries(settings).map(([k, v]) => `${k} ${String(v)}`);
                  return (
                    <tr key={name} data-search-index={name}>
                      <th scope="row">
                        <code>{name}</code>
                      </th>
                      <td>{kind}</td>
                      <td>{shown.length ? shown.join(', ') : 'server defaults'}</td>
                      <td>
                        {build
                          ? `${build.state}${build.total ? ` (${build.indexed ?? 0} of ${build.total})` : ''}`
                          : 'built on first search'}
                        {build?.note && <span class="muted"> · {build.note}</span>}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
