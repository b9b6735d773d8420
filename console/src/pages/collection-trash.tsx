/**
 * The trash of a collection and deleting the collection. A deleted record stays in the trash for 30 days: restore
 * every one (POST /api/trash/{c}), one by its id (POST /api/trash/{c}/{id}), or one from the listed page. Deleting the collection
 * (DELETE /api/collections/{c}) removes its records and its trash for good, after a confirmation that says so.
 */
import { useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { ConfirmButton, ErrorBox, Loading } from '../components.js';
import { useApi } from '../hooks.js';
import { navigate } from '../router.js';
import { dropQuestion } from './collection-shared.js';
import { TrashList } from './trash-list.js';

interface CollectionInfo {
  record_count: number;
  analytics?: { trash_count?: number };
}

export function CollectionTrash({
  collection,
  locked,
  query,
}: {
  collection: string;
  locked: string | undefined;
  /** `?id=` fills in the record to restore (a link from a deleted record). */
  query: URLSearchParams;
}) {
  const info = useApi<CollectionInfo>(`/api/collections/${enc(collection)}`);
  const [id, setId] = useState(query.get('id') ?? '');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);
  const [version, setVersion] = useState(0);
  const trash = info.data?.analytics?.trash_count;
  const skip = Math.max(0, Number(query.get('trash_skip')) || 0);

  const run = async (what: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    setDone('');
    try {
      setDone(await what());
      info.reload();
      setVersion((v) => v + 1);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const restoreAll = () =>
    run(async () => {
      const r = await api<{ records_restored: number }>('POST', `/api/trash/${enc(collection)}`);
      return `Restored ${r.records_restored} record${r.records_restored === 1 ? '' : 's'}.`;
    });
  const restoreOne = (e: Event) => {
    e.preventDefault();
    const wanted = id.trim();
    if (!wanted) return;
    void run(async () => {
      await api('POST', `/api/trash/${enc(collection)}/${enc(wanted)}`);
      setId('');
      return `Restored record ${wanted}.`;
    });
  };
  const drop = async () => {
    setError(null);
    try {
      await api('DELETE', `/api/collections/${enc(collection)}`);
      navigate('/collections');
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <section class="card" aria-labelledby="trash-heading">
        <h2 id="trash-heading" class="small">
          Trash
        </h2>
        <p class="muted small">
          A deleted record goes to the trash and can be restored for 30 days; then it is purged. A record whose id is
          taken again by a live record cannot be restored until that one is deleted.
        </p>
        {info.loading && !info.data && <Loading what="the trash" />}
        {info.data && (
          <dl class="facts">
            <dt>Records</dt>
            <dd data-testid="live-count">{info.data.record_count.toLocaleString('en')}</dd>
            <dt>In the trash</dt>
            <dd data-testid="trash-count">{(trash ?? 0).toLocaleString('en')}</dd>
          </dl>
        )}
        <div class="actions trash-actions">
          <button
            type="button"
            disabled={locked !== undefined || busy || !trash}
            title={locked ?? (!trash ? 'The trash is empty' : undefined)}
            onClick={() => void restoreAll()}
          >
            Restore every record
          </button>
        </div>
        <form class="row" onSubmit={restoreOne}>
          <label for="restore-id">Record id</label>
          <input
            id="restore-id"
            value={id}
            required
            autocomplete="off"
            disabled={locked !== undefined}
            title={locked}
            onInput={(e) => setId(e.currentTarget.value)}
          />
          <button type="submit" class="secondary" disabled={locked !== undefined || busy || !id.trim()} title={locked}>
            Restore record
          </button>
        </form>
        <p role="status" class="notice">
          {done}
        </p>
        <ErrorBox error={error ?? info.error} />
        <TrashList
          collection={collection}
          locked={locked}
          skip={skip}
          version={version}
          onRestored={(message) => {
            setDone(message);
            info.reload();
          }}
        />
      </section>
      <section class="card danger-zone" aria-labelledby="drop-heading">
        <h2 id="drop-heading" class="small">
          Delete the collection
        </h2>
        <p class="small">
          Deleting the collection removes its schema, indexes, records and trash at once. Unlike a record, a deleted
          collection does not go to the trash and cannot be restored.
        </p>
        <ConfirmButton
          label={`Delete ${collection}`}
          question={dropQuestion(collection, info.data?.record_count, trash)}
          confirmLabel="Delete for good"
          disabled={locked !== undefined}
          title={locked}
          onConfirm={drop}
        />
      </section>
    </>
  );
}
