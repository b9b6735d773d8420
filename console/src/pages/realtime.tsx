/** Real time: a collection's change feed over the WebSocket (change-feed.ts), newest first. */
import { useState } from 'preact/hooks';
import { enc } from '../api.js';
import { useChangeFeed, type Change } from '../change-feed.js';
import { useCollectionNames } from '../hooks.js';
import { ErrorBox } from '../components.js';
import { navigate } from '../router.js';

const KEEP = 200;

export function RealTime({ collection }: { collection: string | undefined }) {
  const collections = useCollectionNames();
  const names = collections.names ?? [];
  const [feed, setFeed] = useState<{ collection: string | undefined; changes: Change[] }>({
    collection,
    changes: [],
  });
  // Another collection's feed starts empty.
  const changes = feed.collection === collection ? feed.changes : [];
  const { state, error } = useChangeFeed(collection, (change) =>
    setFeed((f) => ({
      collection,
      changes: [change, ...(f.collection === collection ? f.changes : [])].slice(0, KEEP),
    })),
  );

  return (
    <main id="main">
      <h1>Real time</h1>
      <div class="card row">
        <label for="feed-collection">Collection</label>
        <select
          id="feed-collection"
          value={collection ?? ''}
          onChange={(e) => navigate(`/realtime/${enc(e.currentTarget.value)}`)}
        >
          <option value="">Choose…</option>
          {collection && !names.includes(collection) && <option>{collection}</option>}
          {names.map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
        {collection && (
          <span class={`status ${state}`} role="status" data-testid="feed-state">
            {state === 'live' ? 'Live' : state === 'connecting' ? 'Connecting…' : 'Disconnected'}
          </span>
        )}
      </div>
      <ErrorBox error={error ?? collections.error} />
      {collection && changes.length === 0 && state === 'live' && (
        <p class="muted">Waiting for changes to {collection}…</p>
      )}
      <ol class="feed" aria-live="polite" aria-label="Changes, newest first">
        {changes.map((c) => (
          <li key={c.n} class="card" data-event={c.event}>
            <div>
              <span class={`event ${c.event}`}>{c.event}</span> <code>{c.ids.join(', ')}</code>{' '}
              <time class="muted small">{c.at}</time>
            </div>
            <pre class="json">{JSON.stringify(c.records, null, 2)}</pre>
          </li>
        ))}
      </ol>
    </main>
  );
}
