/**
 * A collection's committed changes as they happen, over the WebSocket (/api/ws, Subscribe). The token goes in the
 * query string because a browser cannot set headers on a WebSocket; the server re-checks it for the connection's
 * whole life and closes the connection when the key is revoked.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { enc, getToken } from './api.js';

export interface Change {
  /** Its number since the feed opened (a stable key for lists). */
  n: number;
  event: string;
  ids: string[];
  records: unknown;
  at: string;
}

export type FeedState = 'connecting' | 'live' | 'closed';

interface Frame {
  type?: string;
  payload?: Record<string, unknown>;
  message?: string;
  request_id?: string;
}

/**
 * Subscribes to `collection` while it is set, calling `onChange` for each change; the feed's state and the
 * server's refusal, if any, come back for the page to show.
 */
export function useChangeFeed(
  collection: string | undefined,
  onChange: (change: Change) => void,
): { state: FeedState; error: unknown } {
  const [state, setState] = useState<FeedState>('connecting');
  const [error, setError] = useState<unknown>(null);
  // The latest callback, so a page re-rendering does not reopen the socket.
  const listener = useRef(onChange);
  listener.current = onChange;
  useEffect(() => {
    if (!collection) return;
    setError(null);
    setState('connecting');
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${scheme}://${location.host}/api/ws?token=${enc(getToken() ?? '')}`);
    let n = 0;
    ws.onopen = () => ws.send(JSON.stringify({ type: 'Subscribe', messageId: 'sub', payload: { collection } }));
    ws.onmessage = (m) => {
      let frame: Frame;
      try {
        frame = JSON.parse(String(m.data)) as Frame;
      } catch {
        return;
      }
      if (frame.type === 'Success') setState('live');
      else if (frame.type === 'Error')
        setError(new Error(`${frame.message ?? 'error'} (request_id ${frame.request_id ?? '?'})`));
      else if (frame.type === 'MutationNotification' && frame.payload) {
        const p = frame.payload;
        listener.current({
          n: ++n,
          event: String(p.event),
          ids: Array.isArray(p.record_ids) ? p.record_ids.map(String) : [],
          records: p.records,
          at: typeof p.timestamp === 'string' ? p.timestamp : new Date().toISOString(),
        });
      }
    };
    ws.onclose = () => setState('closed');
    return () => ws.close();
  }, [collection]);
  return { state, error };
}
