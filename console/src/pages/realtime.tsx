/**
 * Real time: a collection's change feed over the WebSocket (/api/ws, Subscribe), newest first. The token goes
 * in the query string because a browser cannot set headers on a WebSocket.
 */
import { useEffect, useState } from 'preact/hooks';
import { enc, getToken } from '../api.js';
import { useCollectionNames } from '../hooks.js';
import { ErrorBox } from '../components.js';
import { navigate } from '../router.js';

interface Change {
  n: number;
  event: string;
  ids: string[];
  records: unknown;
  at: string;
}

type State = 'connecting' | 'live' | 'closed';

const KEEP = 200;

export function RealTime({ collection }: { collection: string | undefined }) {
  const collections = useCollectionNames();
  const names = collections.names ?? [];
  const [changes, setChanges] = useState<Change[]>([]);
  const [state, setState] = useState<State>('connecting');
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    if (!collection) return;
    setChanges([]);
    setError(null);
    setState('connecting');
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${scheme}://${location.host}/api/ws?token=${enc(getToken() ?? '')}`);
    let n = 0;
    ws.onopen = () => ws.send(JSON.stringify({ type: 'Subscribe', messageId: 'sub', payload: { collection } }));
    ws.onmessage = (m) => {
      let frame: { type?: string; payload?: Record<string, unknown>; message?: string; request_id?: string };
      try {
        frame = JSON.parse(String(m.data)) as typeof frame;
      } catch {
        return;
      }
      if (frame.type === 'Success') setState('live');
      else if (frame.type === 'Error')
        setError(new Error(`${frame.message ?? 'error'} (request_id ${frame.request_id ?? '?'})`));
      else if (frame.type === 'MutationNotification' && frame.payload) {
        const p = frame.payload;
        const change: Change = {
          n: ++n,
          event: String(p.event),
          ids: Array.isArray(p.record_ids) ? p.record_ids.map(String) : [],
          records: p.records,
          at: typeof p.timestamp === 'string' ? p.timestamp : new Date().toISOString(),
        };
        setChanges((cs) => [change, ...cs].slice(0, KEEP));
      }
    };
    ws.onclose = () => setState('closed');
    return () => ws.close();
  }, [collection]);

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
