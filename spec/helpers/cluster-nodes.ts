/**
 * EddyDB cluster nodes as child processes (`eddydb start --nats … --cluster …`),
 * for specs that kill them with SIGKILL, and small HTTP helpers to write to
 * and read from them.
 */
import { startChild, childToken, killChild, type ChildServer } from './child-server.js';
import { tempDir } from './temp-dir.js';
import type { TestServer } from './test-server.js';

export interface ClusterNodeProcess {
  readonly dataDir: string;
  child: ChildServer;
  token: string;
  readonly args: string[];
}

/** Starts one node of `cluster` on `nats` (a `--nats` value); `dataDir` defaults to a new temporary one. */
export async function startNode(
  nats: string,
  cluster: string,
  extra: string[] = [],
  dataDir = tempDir('eddydb-node-'),
): Promise<ClusterNodeProcess> {
  const args = ['--nats', nats, '--cluster', cluster, ...extra];
  const child = await startChild(dataDir, args);
  return { dataDir, child, token: await nodeToken(child.url), args };
}

/**
 * A token from the node at `url`. A replica has the admin key once the primary's write of it reached it: it is
 * asked only once it follows a primary and has caught up, since each refusal before then counts as a failed token
 * request, and ten of those lock the address out of token requests for a minute.
 */
export function nodeToken(url: string): Promise<string> {
  return eventually(
    'a token',
    async () => {
      const cluster = await clusterHealth(url);
      const caughtUp =
        cluster?.role === 'primary' || (cluster?.primary_url && cluster.applied_seq > 0 && cluster.lag === 0);
      if (cluster && !caughtUp) return undefined;
      return childToken(url).then(
        (t) => t || undefined,
        () => undefined,
      );
    },
    15_000,
    100,
  );
}

export async function restartNode(node: ClusterNodeProcess): Promise<void> {
  node.child = await startChild(node.dataDir, node.args);
  node.token = await nodeToken(node.child.url);
}

export function stopNode(node: ClusterNodeProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return killChild(node.child, signal);
}

export interface HealthCluster {
  role: string;
  primary_url: string | null;
  applied_seq: number;
  lag: number;
  node_id: string;
}

export async function clusterHealth(url: string): Promise<HealthCluster | undefined> {
  try {
    const r = await fetch(url + '/api/health');
    return ((await r.json()) as { cluster?: HealthCluster }).cluster;
  } catch {
    return undefined;
  }
}

/** POSTs a record to `url`'s collection without following redirects. */
export function insert(url: string, token: string, collection: string, record: unknown): Promise<Response> {
  return fetch(`${url}/api/insert/${collection}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(record),
  });
}

/** Waits until `check` holds, polling every `pollMs`; throws naming `what` after `ms`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  ms: number,
  pollMs = 50,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * Resolves once the in-process node `server` is the primary and holds the admin key. A node writes the key only
 * after it becomes the primary (its write needs the role), so a token asked for in between is answered 503 (retry).
 */
export function primaryWithAdminKey(server: TestServer): Promise<true> {
  return eventually(
    'a primary with its admin key',
    async () => (server.server.cluster?.isPrimary && server.server.db.keys.hasAdmin() ? true : undefined),
    10_000,
  );
}
