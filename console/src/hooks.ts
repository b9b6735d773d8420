/** Data hooks every page uses: one API answer with its loading and error state, and the collections a key sees. */
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { grantedCollections, loadAccess } from './access.js';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Asks again (after a change the page made). */
  reload(): void;
}

/**
 * GET (or another method with a body) `path` whenever it or `body` changes; null asks nothing. An answer that
 * arrives after the page moved on is dropped.
 */
export function useApi<T>(path: string | null, method = 'GET', body?: unknown): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: null,
    loading: path !== null,
  });
  const [tick, setTick] = useState(0);
  const bodyKey = body === undefined ? '' : JSON.stringify(body);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setState((s) => ({ data: s.data, error: null, loading: true }));
    api<T>(method, path, body).then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error: unknown) => live && setState({ data: undefined, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [path, method, bodyKey, tick]);
  return { ...state, reload: () => setTick((n) => n + 1) };
}

/**
 * The collection names the signed-in key can see, sorted: every collection for an admin (internal ones left out),
 * the collections granted by name for a restricted key (which may not list them). `listed` is false for the latter.
 */
export function useCollectionNames(): { names: string[] | undefined; listed: boolean; error: unknown; reload(): void } {
  const [state, setState] = useState<{ names: string[] | undefined; listed: boolean; error: unknown }>({
    names: undefined,
    listed: true,
    error: null,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    (async () => {
      const access = await loadAccess();
      if (!access.admin) return { names: grantedCollections(access).sort(), listed: false, error: null };
      const { collections } = await api<{ collections: string[] }>('GET', '/api/collections?exclude_internal=true');
      return { names: [...collections].sort(), listed: true, error: null };
    })().then(
      (s) => live && setState(s),
      (error: unknown) => live && setState({ names: undefined, listed: true, error }),
    );
    return () => {
      live = false;
    };
  }, [tick]);
  return { ...state, reload: () => setTick((n) => n + 1) };
}
