/**
 * Import (a page: a JSON array or NDJSON file sent in batches with a progress bar, every failed record named with
 * the server's message) and export (a panel of the records page: the current filter's records fetched a page at a
 * time and saved as NDJSON or JSON through a Blob download).
 */
import { useRef, useState } from 'preact/hooks';
import { enc } from '../api.js';
import { canUseCollection, NOT_ALLOWED, useAccess } from '../access.js';
import { ErrorBox } from '../components.js';
import { batchesOf, insertBatch, readImportFile, type ImportFailure } from '../import-batches.js';
import { arrayElements, stringifyExact } from '../json-text.js';
import { apiText } from '../raw-api.js';
import { findBody, type RecordsQuery } from '../records-query.js';
import './records.css';

/** Saves parts as a file through a Blob URL. */
function download(parts: BlobPart[], name: string, type: string): void {
  const url = URL.createObjectURL(new Blob(parts, { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

interface Progress {
  done: number;
  total: number;
  inserted: number;
  failures: ImportFailure[];
  finished: boolean;
}

export function ImportPage({ collection }: { collection: string }) {
  const access = useAccess();
  const canWrite = canUseCollection(access, collection, 'write');
  const [file, setFile] = useState<File | undefined>(undefined);
  const [progress, setProgress] = useState<Progress | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [running, setRunning] = useState(false);
  const stop = useRef(false);

  const run = async () => {
    if (!file) return;
    setError(null);
    setRunning(true);
    stop.current = false;
    try {
      const { items, unreadable } = readImportFile(await file.text());
      const p: Progress = { done: 0, total: items.length, inserted: 0, failures: [...unreadable], finished: false };
      setProgress({ ...p });
      for (const batch of batchesOf(items)) {
        if (stop.current) {
          p.failures.push({ where: `${p.total - p.done} records from ${batch[0]!.where}`, error: 'not sent: stopped' });
          break;
        }
        const failures = await insertBatch(collection, batch);
        p.done += batch.length;
        p.inserted += batch.length - failures.length;
        p.failures.push(...failures);
        setProgress({ ...p });
      }
      setProgress({ ...p, finished: true });
    } catch (err) {
      setError(err);
    } finally {
      setRunning(false);
    }
  };

  const pct = progress && progress.total ? Math.round((progress.done / progress.total) * 100) : 0;
  return (
    <main id="main" class="records-page">
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/collections">Collections</a> / <a href={`/collections/${enc(collection)}`}>{collection}</a> /{' '}
        <span>Import</span>
      </nav>
      <h1>Import into {collection}</h1>
      <form
        class="card"
        aria-label="Import a file"
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <p class="muted small">
          A JSON array of records, or NDJSON (one record per line). Typed values (<code>{'{"type", "value"}'}</code>)
          and ids are kept, so an export imports back as it was. Records go in batches of 500.
        </p>
        <label for="import-file">File</label>
        <input
          id="import-file"
          type="file"
          accept=".json,.ndjson,.jsonl,application/json,application/x-ndjson"
          disabled={running}
          onChange={(e) => setFile(e.currentTarget.files?.[0])}
        />
        <div class="actions">
          <button
            type="submit"
            disabled={!file || running || !canWrite}
            title={access && !canWrite ? NOT_ALLOWED : undefined}
          >
            Import
          </button>
          {running && (
            <button type="button" class="secondary" onClick={() => (stop.current = true)}>
              Stop after this batch
            </button>
          )}
        </div>
      </form>
      <ErrorBox error={error} />
      {progress && (
        <section class="card" aria-label="Import progress">
          <label for="import-progress">
            {progress.finished ? 'Import finished' : 'Importing'}: {progress.done.toLocaleString('en')} of{' '}
            {progress.total.toLocaleString('en')} records sent
          </label>
          <progress id="import-progress" max={progress.total || 1} value={progress.total ? progress.done : 1}>
            {pct}%
          </progress>
          <p data-testid="import-summary" role="status">
            {progress.inserted.toLocaleString('en')} inserted, {progress.failures.length.toLocaleString('en')} failed
            {progress.finished && progress.inserted > 0 && (
              <>
                {' '}
                · <a href={`/collections/${enc(collection)}`}>See the records</a>
              </>
            )}
          </p>
          {progress.failures.length > 0 && <FailureList failures={progress.failures} collection={collection} />}
        </section>
      )}
    </main>
  );
}

function FailureList({ failures, collection }: { failures: ImportFailure[]; collection: string }) {
  const shown = failures.slice(0, 200);
  const retry = failures.filter((f) => f.text !== undefined).map((f) => f.text + '\n');
  return (
    <>
      <h2 class="small">Records that were not imported</h2>
      <div class="scroll">
        <table class="data failures">
          <thead>
            <tr>
              <th scope="col">Where</th>
              <th scope="col">id</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((f, i) => (
              <tr key={i} data-where={f.where}>
                <td>{f.where}</td>
                <td>{f.id ?? '—'}</td>
                <td class="wrap">{f.error}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {failures.length > shown.length && <p class="muted">And {failures.length - shown.length} more.</p>}
      {retry.length > 0 && (
        <button
          type="button"
          class="secondary"
          onClick={() => download(retry, `${collection}-not-imported.ndjson`, 'application/x-ndjson')}
        >
          Download the failed records (NDJSON)
        </button>
      )}
    </>
  );
}

/** Records per export request: at most 1,000 held by the server and the page at once. */
const EXPORT_PAGE = 1000;
/** Above this many records a sorted export is slow (each page holds every row before it): the panel says so. */
const SLOW_SORTED_EXPORT = 100_000;

/** Export of the records the current filter, sort and projection select, fetched a page at a time. */
export function ExportPanel({
  collection,
  query,
  total,
}: {
  collection: string;
  query: RecordsQuery;
  /** The collection's record count when the view is unfiltered, for the progress bar. */
  total?: number;
}) {
  const [format, setFormat] = useState<'ndjson' | 'json'>('ndjson');
  const [state, setState] = useState<{ fetched: number; done: boolean } | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [running, setRunning] = useState(false);

  const run = async () => {
    setError(null);
    setRunning(true);
    setState({ fetched: 0, done: false });
    try {
      const base = findBody(query);
      // Each page becomes a Blob at once, so the page's text can be let go while the next is fetched.
      const parts: Blob[] = [];
      let fetched = 0;
      for (let skip = 0; ; skip += EXPORT_PAGE) {
        const body = stringifyExact({ ...base, limit: EXPORT_PAGE, skip });
        const page = arrayElements(await apiText('POST', `/api/find/${enc(collection)}`, body));
        const text =
          format === 'ndjson' ? page.map((r) => r + '\n') : page.map((r, i) => (fetched + i ? ',\n' : '[\n') + r);
        parts.push(new Blob(text));
        fetched += page.length;
        setState({ fetched, done: false });
        if (page.length < EXPORT_PAGE) break;
      }
      if (format === 'json') parts.push(new Blob([fetched ? '\n]\n' : '[]\n']));
      download(parts, `${collection}.${format}`, format === 'ndjson' ? 'application/x-ndjson' : 'application/json');
      setState({ fetched, done: true });
    } catch (err) {
      setError(err);
    } finally {
      setRunning(false);
    }
  };

  return (
    <section class="card export" aria-label="Export">
      <h2 class="small">Export</h2>
      <p class="muted small">
        The records this view selects (filter, sort and fields), fetched 1,000 at a time.
        {query.sort.length > 0 && (total === undefined || total > SLOW_SORTED_EXPORT) && (
          <>
            {' '}
            A sorted export sorts again for every page: over {SLOW_SORTED_EXPORT.toLocaleString('en')} records it is
            slow, and unsorted is faster.
          </>
        )}
      </p>
      <div class="row">
        <label for="export-format">Format</label>
        <select
          id="export-format"
          value={format}
          onChange={(e) => setFormat(e.currentTarget.value as 'ndjson' | 'json')}
        >
          <option value="ndjson">NDJSON (one record per line)</option>
          <option value="json">JSON array</option>
        </select>
        <button type="button" disabled={running} onClick={() => void run()}>
          Export
        </button>
      </div>
      {state && (
        <div class="export-progress">
          <label for="export-progress">
            {state.done ? 'Exported' : 'Fetching'} {state.fetched.toLocaleString('en')}
            {total !== undefined ? ` of ${total.toLocaleString('en')}` : ''} records
          </label>
          <progress
            id="export-progress"
            max={state.done ? 1 : total}
            value={state.done ? 1 : total !== undefined ? state.fetched : undefined}
          />
        </div>
      )}
      <ErrorBox error={error} />
    </section>
  );
}
