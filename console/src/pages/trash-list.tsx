/**
 * What a collection's trash holds, a page at a time (GET /api/trash/{c}, the most recently deleted first), each
 * with when it was deleted, a glimpse of the record and Restore. The page's offset is `?trash_skip=` in the URL.
 */
import { useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { ErrorBox, Loading } from '../components.js';
import { useApi } from '../hooks.js';
import { navigate } from '../router.js';
import { display } from '../values.js';

const PAGE = 25;

interface TrashPage {
  total: number;
  records: { id: string; deleted_at: string; record: Record<string, unknown> }[];
}

/** The record's first few fields besides its id, as one short line. */
function glimpse(record: Record<string, unknown>): string {
  return Object.entries(record)
    .filter(([k]) => k !== 'id')
    .slice(0, 3)
    .map(([k, v]) => `${k}: ${display(v)}`)
    .join(' · ');
}

export function TrashList({
  collection,
  locked,
  skip,
  version,
  onRestored,
}: {
  collection: string;
  /** Why restoring is disabled for this key, when it is. */
  locked: string | undefined;
  skip: number;
  /** Changes when the trash changed elsewhere on the page, so the list asks again. */
  version: number;
  onRestored: (message: string) => void;
}) {
  const page = useApi<TrashPage>(
    locked === undefined ? `/api/trash/${enc(collection)}?limit=${PAGE}&skip=${skip}&v=${version}` : null,
  );
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const goTo = (to: number) => {
    const q = new URLSearchParams(location.search);
    if (to > 0) q.set('trash_skip', String(to));
    else q.delete('trash_skip');
    const qs = q.toString();
    navigate(`${location.pathname}${qs ? `?${qs}` : ''}`, true);
  };
  const restore = async (id: string) => {
    setBusy(id);
    setError(null);
    try {
      await api('POST', `/api/trash/${enc(collection)}/${enc(id)}`);
      page.reload();
      onRestored(`Restored record ${id}.`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(undefined);
    }
  };
  if (locked !== undefined) return <p class="muted small">{locked}: the trash is listed for admin keys.</p>;
  const rows = page.data?.records ?? [];
  const total = page.data?.total ?? 0;
  return (
    <div class="trash-list">
      <ErrorBox error={error ?? page.error} />
      {page.loading && !page.data && <Loading what="the trash" />}
      {page.data && rows.length === 0 && <p class="muted">Nothing on this page of the trash.</p>}
      {rows.length > 0 && (
        <div class="scroll">
          <table class="data" aria-label="Records in the trash">
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Deleted</th>
                <th scope="col">Record</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} data-trashed={r.id}>
                  <td>
                    <code>{r.id}</code>
                  </td>
                  <td>
                    <time dateTime={r.deleted_at}>{new Date(r.deleted_at).toLocaleString('en')}</time>
                  </td>
                  <td class="muted small">{glimpse(r.record)}</td>
                  <td>
                    <button
                      type="button"
                      class="secondary"
                      disabled={busy !== undefined}
                      aria-label={`Restore ${r.id}`}
                      onClick={() => void restore(r.id)}
                    >
                      Restore
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {total > PAGE && (
        <div class="pager">
          <button type="button" class="secondary" disabled={skip === 0} onClick={() => goTo(Math.max(0, skip - PAGE))}>
            Newer
          </button>
          <span class="muted">
            {Math.min(skip + 1, total)}–{Math.min(skip + PAGE, total)} of {total.toLocaleString('en')}
          </span>
          <button type="button" class="secondary" disabled={skip + PAGE >= total} onClick={() => goTo(skip + PAGE)}>
            Older
          </button>
        </div>
      )}
    </div>
  );
}
