/** Collections: every collection's name and record count (GET /api/collections, then each collection). */
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { ErrorBox, Loading } from '../components.js';

interface Row {
  name: string;
  count: number | undefined;
}

export function Collections() {
  const [rows, setRows] = useState<Row[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    (async () => {
      const { collections } = await api<{ collections: string[] }>('GET', '/api/collections?exclude_internal=true');
      const names = [...collections].sort();
      if (live) setRows(names.map((name) => ({ name, count: undefined })));
      const counts = await Promise.all(
        names.map((n) =>
          api<{ record_count: number }>('GET', `/api/collections/${enc(n)}`).then((c) => c.record_count),
        ),
      );
      if (live) setRows(names.map((name, i) => ({ name, count: counts[i] })));
    })().catch((err: unknown) => live && setError(err));
    return () => {
      live = false;
    };
  }, []);
  return (
    <main id="main">
      <h1>Collections</h1>
      <ErrorBox error={error} />
      {!rows && !error && <Loading what="collections" />}
      {rows && rows.length === 0 && <p class="muted">No collections yet. Insert a record to create one.</p>}
      {rows && rows.length > 0 && (
        <table class="data">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col" class="num">
                Records
              </th>
              <th scope="col">Live</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.name} data-collection={r.name}>
                <td>
                  <a href={`/collections/${enc(r.name)}`}>{r.name}</a>
                </td>
                <td class="num" data-testid="record-count">
                  {r.count === undefined ? '…' : r.count.toLocaleString('en')}
                </td>
                <td>
                  <a href={`/realtime/${enc(r.name)}`} aria-label={`Watch live changes of ${r.name}`}>
                    Watch
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
