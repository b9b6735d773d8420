/**
 * `eddydb start --memory` as a real process, run in an empty working
 * directory: it says it is memory only, prints a generated admin key without
 * saving it, serves requests, stops cleanly and leaves the directory empty.
 * With a data directory given as well it exits 2 saying which to drop.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { CLI_MAIN, cleanEnv, runCli } from '../helpers/run-cli.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

/** tsx's loader (its package export), by URL. */
const TSX_LOADER = pathToFileURL(path.resolve('node_modules/tsx/dist/loader.mjs')).href;

const CONFLICT =
  'eddydb: --memory writes nothing to disk, so it takes no data directory: drop --data-dir (or EDDYDB_DATA_DIR) to ' +
  'run in memory, or drop --memory (or EDDYDB_MEMORY) to keep the data in that directory\n';

describe('eddydb start --memory, the process', function () {
  this.timeout(60_000);
  let cwd: string;
  beforeEach(() => {
    cwd = tempDir('eddydb-start-memory-');
  });
  afterEach(() => removeDir(cwd));

  it('runs memory only in an empty directory, serves, stops cleanly and leaves the directory empty', async () => {
    // The loader by its full URL: the working directory has no node_modules to resolve `tsx` from.
    const proc = spawn(process.execPath, ['--import', TSX_LOADER, CLI_MAIN, 'start', '--memory'], {
      cwd,
      env: cleanEnv({ PORT: '0', HOST: '127.0.0.1', EDDYDB_LOG_LEVEL: 'warn' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    try {
      await until('the listening line', () => /listening on/.test(out), 30_000);
      const port = /listening on http:\/\/127\.0\.0\.1:(\d+) \(memory only: nothing is written to disk\)/.exec(out);
      expect(port, out).to.not.equal(null);
      expect(out).to.contain('Generated admin API key (shown once; memory only, not saved)');
      const key = /eddy_admin_\S+/.exec(out)![0];
      const r = await fetch(`http://127.0.0.1:${port![1]}/api/auth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ api_key: key }),
      });
      expect(r.status).to.equal(200);
    } finally {
      proc.kill('SIGTERM');
    }
    expect(await exited, out).to.equal(0);
    expect(readdirSync(cwd)).to.deep.equal([]);
  });

  it('exits 2 saying which to drop when a data directory is given too, by flag or by variable', () => {
    expect(runCli(['start', '--memory', '--data-dir', cwd])).to.include({ code: 2, stderr: CONFLICT, stdout: '' });
    expect(runCli(['start'], { env: { EDDYDB_MEMORY: '1', EDDYDB_DATA_DIR: cwd } })).to.include({
      code: 2,
      stderr: CONFLICT,
    });
    expect(readdirSync(cwd)).to.deep.equal([]);
  });
});
