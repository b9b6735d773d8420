/** One record as JSON (GET /api/find/{c}/{id}). */
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { ErrorBox, Loading } from '../components.js';

export function RecordView({ collection, id }: { collection: string; id: string }) {
  const [rec, setRec] = useState<unknown>(undefined);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    api<unknown>('GET', `/api/find/${enc(collection)}/${enc(id)}`).then(
      (r) => live && setRec(r),
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [collection, id]);
  return (
    <main id="main">
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/collections">Collections</a> / <a href={`/collections/${enc(collection)}`}>{collection}</a> /{' '}
        <span>{id}</span>
      </nav>
      <h1>Record {id}</h1>
      <ErrorBox error={error} />
      {rec === undefined && !error && <Loading what="the record" />}
      {rec !== undefined && (
        <pre class="json card" tabIndex={0} aria-label="Record as JSON" data-testid="record-json">
          {JSON.stringify(rec, null, 2)}
        </pre>
      )}
    </main>
  );
}
