/**
 * An EddyDB server for HTTP and WebSocket scenarios: started from the built
 * dist in a temporary data directory with an admin token at hand, seeded with
 * RECORDS records of ~200 bytes, and checks that fail loudly when a request
 * the scenario measures does not succeed (so errors are never measured).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEddy, stop, token, type Proc } from './procs.js';
import { benchRecord } from './records.js';

/** Records seeded for point reads: the "random ids over 10,000 records". */
export const RECORDS = 10_000;

export interface Eddy extends Proc {
  dir: string;
  headers: Record<string, string>;
}

/** `cores`: where the server may run, as taskset takes them (procs.ts SERVER_CORE unless given). */
export async function startServer(mode: string, nodeArgs: string[] = [], cores?: string): Promise<Eddy> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-'));
  const p = await startEddy(dir, ['--durability', mode], { nodeArgs, cores });
  const headers = { authorization: `Bearer ${await token(p.url)}`, 'content-type': 'application/json' };
  return { ...p, dir, headers };
}

export async function stopEddy(e: Eddy): Promise<void> {
  await stop(e);
  rmSync(e.dir, { recursive: true, force: true });
}

/** Inserts RECORDS records into `bench` (batches of 1,000); their ids. */
export async function seed(e: Eddy): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < RECORDS; i += 1000) {
    const inserts = Array.from({ length: 1000 }, (_, k) => ({ data: benchRecord(i + k) }));
    const r = await fetch(`${e.url}/api/batch/insert/bench`, {
      method: 'POST',
      headers: e.headers,
      body: JSON.stringify({ inserts }),
    });
    const body = (await r.json()) as { successful?: string[] };
    if (!r.ok || body.successful?.length !== 1000)
      throw new Error(`seeding failed: ${r.status} ${JSON.stringify(body).slice(0, 300)}`);
    ids.push(...body.successful);
  }
  return ids;
}

/** Fails loudly when a scenario's request does not succeed, instead of measuring errors. */
export async function check(url: string, init: RequestInit, contentType: string): Promise<unknown> {
  const r = await fetch(url, init);
  const type = r.headers.get('content-type') ?? '';
  if (!r.ok || !type.startsWith(contentType))
    throw new Error(`${init.method ?? 'GET'} ${url}: ${r.status} ${type} ${(await r.text()).slice(0, 300)}`);
  return contentType === 'application/json' ? r.json() : r.arrayBuffer();
}
