/**
 * `eddydb start --shutdown-timeout`, through real processes: on SIGTERM the
 * server stops accepting connections and lets the requests in flight finish
 * (answered, then exit 0); a request or a schedule run that holds the stop
 * past the timeout ends the process with code 1 within it, naming what was
 * still running, and every write acknowledged before is there at the next
 * open. The stuck work is an outbound HTTP request to a local server that
 * holds its answer.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { Database } from '../../lib/engine/index.js';
import { startLocalHttp, type LocalHttp } from '../helpers/local-http.js';
import { spawnCli, type CliProcess } from '../helpers/run-cli.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';
import { acceptsConnections } from '../helpers/accepts-connections.js';

const ADMIN_KEY = 'shutdown-timeout-admin-key-0123456789';
const TIMEOUT_SECS = 2;

describe('eddydb start --shutdown-timeout', function () {
  this.timeout(60_000);
  let dir: string;
  let dataDir: string;
  let upstream: LocalHttp;
  /** Answers the upstream holds back. */
  let held: ServerResponse[];
  let cli: CliProcess | undefined;

  beforeEach(async () => {
    dir = tempDir('eddydb-shutdown-');
    dataDir = path.join(dir, 'data');
    held = [];
    upstream = await startLocalHttp();
    upstream.handler = (_req, res) => {
      held.push(res);
    };
  });
  afterEach(async () => {
    if (cli && cli.proc.exitCode === null && cli.proc.signalCode === null) cli.proc.kill('SIGKILL');
    await cli?.exited;
    cli = undefined;
    await upstream.close();
    removeDir(dir);
  });

  /** Starts the server with the timeout under test; resolves with its URL, its port and an admin token. */
  async function start(): Promise<{ url: string; port: number; token: string }> {
    cli = spawnCli(
      [
        'start',
        ...['--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir],
        ...['--shutdown-timeout', String(TIMEOUT_SECS), '--outbound-allow-hosts', '127.0.0.1'],
      ],
      { EDDYDB_ADMIN_KEY: ADMIN_KEY, EDDYDB_SNAPSHOT_CRON: '' },
    );
    const proc = cli;
    await until('the listening line', () => /listening on http:\/\/[^:]+:\d+/.test(proc.output()), 30_000);
    const port = Number(/listening on http:\/\/[^:]+:(\d+)/.exec(proc.output())![1]);
    const url = `http://127.0.0.1:${port}`;
    const r = await fetch(`${url}/api/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ api_key: ADMIN_KEY }),
    });
    const { token } = (await r.json()) as { token: string };
    return { url, port, token };
  }

  async function call(url: string, token: string, method: string, route: string, body?: unknown) {
    const r = await fetch(`${url}${route}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  }

  /** Saves the function `slow`: one outbound request to the upstream, which holds it. */
  async function saveSlowFunction(url: string, token: string): Promise<void> {
    const saved = await call(url, token, 'POST', '/api/functions', {
      label: 'slow',
      name: 'slow',
      parameters: {},
      functions: [{ type: 'HttpRequest', url: `${upstream.url}/hold`, timeout_seconds: 120 }],
    });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
  }

  /** Sends SIGTERM; resolves with the exit code and how long the exit took. */
  async function terminate(): Promise<{ code: number | null; ms: number }> {
    const started = performance.now();
    cli!.proc.kill('SIGTERM');
    const { code } = await cli!.exited;
    return { code, ms: performance.now() - started };
  }

  it('answers a request in flight before it exits 0, refusing new connections meanwhile', async () => {
    const { url, port, token } = await start();
    await saveSlowFunction(url, token);
    const answer = call(url, token, 'POST', '/api/functions/slow', {});
    await until('the outbound request', () => held.length === 1, 10_000);
    cli!.proc.kill('SIGTERM');
    await until('the end of accepting connections', () => /shutting down/.test(cli!.output()), 5_000);
    let refused = false;
    const deadline = Date.now() + 5_000;
    while (!refused && Date.now() < deadline) refused = !(await acceptsConnections(port));
    expect(refused, 'a new connection during the stop is refused').to.equal(true);
    held[0]!.writeHead(200, { 'content-type': 'application/json' }).end('{"done":true}');
    expect((await answer).status).to.equal(200);
    const { code } = await cli!.exited;
    expect(code, cli!.output()).to.equal(0);
    expect(cli!.output()).not.to.include('did not finish');
    expect(existsSync(path.join(dataDir, 'LOCK')), 'the data lock').to.equal(false);
  });

  it('is not held by an open event stream or an idle keep-alive connection', async () => {
    const { url, token } = await start();
    // An idle keep-alive connection: fetch's pool keeps the one this answer came on.
    expect((await call(url, token, 'POST', '/api/insert/notes', { title: 'before' })).status).to.equal(201);
    const stream = await fetch(`${url}/api/subscribe/notes`, { headers: { Authorization: `Bearer ${token}` } });
    expect(stream.headers.get('content-type')).to.match(/^text\/event-stream/);
    const reader = stream.body!.getReader();
    const { code, ms } = await terminate();
    expect(code, cli!.output()).to.equal(0);
    expect(ms, 'the stop did not wait for the stream').to.be.lessThan(TIMEOUT_SECS * 1000);
    await reader.cancel().catch(() => undefined);
  });

  it('exits 1 within the timeout naming a request still in flight; acknowledged writes are kept', async () => {
    const { url, token } = await start();
    const inserted = await call(url, token, 'POST', '/api/insert/notes', { title: 'acknowledged' });
    expect(inserted.status).to.equal(201);
    await saveSlowFunction(url, token);
    const answer = call(url, token, 'POST', '/api/functions/slow', {}).catch(() => 'connection closed');
    await until('the outbound request', () => held.length === 1, 10_000);
    const { code, ms } = await terminate();
    expect(code, cli!.output()).to.equal(1);
    expect(ms).to.be.within(TIMEOUT_SECS * 1000 - 100, TIMEOUT_SECS * 1000 + 3000);
    expect(cli!.output()).to.match(
      /shutdown did not finish within 2 s \(--shutdown-timeout\), exiting with code 1; still running: requests in flight: POST \/api\/functions\/slow \(running \d+ ms\)/,
    );
    expect(await answer).to.equal('connection closed');
    const db = await Database.open({ dataDir, lockWaitMs: 5_000 });
    try {
      expect(db.records.findById('notes', inserted.body.id as string)).to.not.equal(undefined);
    } finally {
      await db.close();
    }
  });

  it('exits 1 within the timeout naming a schedule run still in progress', async () => {
    const { url, token } = await start();
    const created = await call(url, token, 'POST', '/api/schedules', {
      name: 'hourly-export',
      cron: '* * * * * *',
      action: { type: 'http', url: `${upstream.url}/export`, method: 'POST' },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    await until('the schedule run', () => held.length === 1, 10_000);
    const { code, ms } = await terminate();
    expect(code, cli!.output()).to.equal(1);
    expect(ms).to.be.within(TIMEOUT_SECS * 1000 - 100, TIMEOUT_SECS * 1000 + 3000);
    expect(cli!.output()).to.include(
      `still running: schedule runs in progress: 'hourly-export' (id ${created.body.id as string})`,
    );
  });
});
