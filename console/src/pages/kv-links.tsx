/**
 * The records a key is linked to (GET /api/kv/links/{key}), each a link to the record's page, with unlink and a
 * form to link another record (POST /api/kv/link and /api/kv/unlink). Linking needs KV write on the key; the
 * server lists only links into collections the API key may read.
 */
import { useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { NOT_ALLOWED } from '../access.js';
import { ErrorBox, Loading } from '../components.js';
import { useApi, useCollectionNames } from '../hooks.js';

interface Link {
  collection: string;
  document_id: string;
}

export function KvLinks({ name, mayWrite }: { name: string; mayWrite: boolean }) {
  const links = useApi<{ links: Link[] }>(`/api/kv/links/${enc(name)}`);
  const { names } = useCollectionNames();
  const [collection, setCollection] = useState('');
  const [recordId, setRecordId] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const why = mayWrite ? undefined : NOT_ALLOWED;

  const change = async (path: '/api/kv/link' | '/api/kv/unlink', link: Link) => {
    setBusy(true);
    setError(null);
    try {
      await api('POST', path, { key: name, ...link });
      if (path === '/api/kv/link') setRecordId('');
      links.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="kv-links" aria-labelledby="kv-links-title">
      <h3 id="kv-links-title" class="small">
        Linked records
      </h3>
      <ErrorBox error={links.error} />
      {links.loading && !links.data && <Loading what="links" />}
      {links.data && links.data.links.length === 0 && <p class="muted small">No linked records.</p>}
      {links.data && links.data.links.length > 0 && (
        <ul class="kv-link-list">
          {links.data.links.map((l) => (
            <li key={`${l.collection}/${l.document_id}`} data-link={`${l.collection}/${l.document_id}`}>
              <a href={`/collections/${enc(l.collection)}/records/${enc(l.document_id)}`}>
                {l.collection} / {l.document_id}
              </a>
              <button
                type="button"
                class="link"
                disabled={!mayWrite || busy}
                title={why}
                aria-label={`Unlink ${l.collection} / ${l.document_id}`}
                onClick={() => void change('/api/kv/unlink', l)}
              >
                Unlink
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        class="kv-link-form"
        aria-label="Link a record"
        onSubmit={(e) => {
          e.preventDefault();
          void change('/api/kv/link', { collection: collection.trim(), document_id: recordId.trim() });
        }}
      >
        <span class="kv-field">
          <label for="kv-link-collection">Collection</label>
          <input
            id="kv-link-collection"
            list="kv-link-collections"
            required
            disabled={!mayWrite}
            title={why}
            value={collection}
            onInput={(e) => setCollection(e.currentTarget.value)}
          />
          <datalist id="kv-link-collections">
            {names?.map((n) => (
              <option key={n} value={n} />
            ))}
          </datalist>
        </span>
        <span class="kv-field">
          <label for="kv-link-record">Record id</label>
          <input
            id="kv-link-record"
            required
            disabled={!mayWrite}
            title={why}
            value={recordId}
            onInput={(e) => setRecordId(e.currentTarget.value)}
          />
        </span>
        <button type="submit" class="secondary" disabled={!mayWrite || busy} title={why}>
          Link
        </button>
      </form>
      <ErrorBox error={error} />
    </section>
  );
}
