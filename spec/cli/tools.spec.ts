import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Database } from '../../lib/engine/index.js';
import { spawnCli } from '../helpers/run-cli.js';
import { tempDir, removeDir } from '../helpers/temp-dir.js';

function eddydb(args: string[], input?: string) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.resolve('lib/cli/main.ts'), ...args], {
    input,
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('cli tools (eddydb snapshot, compact, verify, export, import)', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir('eddydb-cli-');
  });
  afterEach(() => removeDir(dir));

  it('imports NDJSON, reports bad lines, and exports typed records that import again identically', async () => {
    const lines = [
      JSON.stringify({ id: 'a', name: 'Ann', when: '2026-01-01T00:00:00Z', price: { type: 'Decimal', value: '1.50' } }),
      '{"n":9223372036854775807,' +
        JSON.stringify({
          id: 'b',
          bin: { type: 'Binary', value: 'AAEC' },
          tags: { type: 'Set', value: ['x', 'x', 'y'] },
        }).slice(1),
      'not json',
    ].join('\n');
    const imp = eddydb(['import', '--data-dir', dir, '--collection', 'people', '--create'], lines);
    expect(imp.code).to.equal(1);
    expect(imp.stderr).to.include('line 3: not valid JSON');
    expect(imp.stderr).to.include('imported 2 records');
    const exp = eddydb(['export', '--data-dir', dir, '--collection', 'people']);
    expect(exp.code).to.equal(0);
    const rows = exp.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).to.have.length(2);
    expect(rows[0].price).to.deep.equal({ type: 'Decimal', value: '1.50' });
    expect(rows[1].bin).to.deep.equal({ type: 'Binary', value: [0, 1, 2] });
    expect(rows[1].tags).to.deep.equal({ type: 'Set', value: ['x', 'y'] });
    expect(exp.stdout).to.include('"n":{"type":"Integer","value":9223372036854775807}');
    const second = tempDir('eddydb-cli2-');
    try {
      expect(eddydb(['import', '--data-dir', second, '--collection', 'people', '--create'], exp.stdout).code).to.equal(
        0,
      );
      expect(eddydb(['export', '--data-dir', second, '--collection', 'people']).stdout).to.equal(exp.stdout);
    } finally {
      removeDir(second);
    }
  });

  it('verifies every checksum and names the damaged file and offset', async () => {
    const db = await Database.open({ dataDir: dir });
    for (let i = 0; i < 20; i++) await db.records.insert('items', { n: i });
    await db.close();
    const ok = eddydb(['verify', '--data-dir', dir]);
    expect(ok.code).to.equal(0);
    expect(ok.stdout).to.include('0 with problems');
    const seg = readdirSync(dir)
      .filter((f) => f.endsWith('.seg'))
      .sort()
      .at(-1)!;
    const buf = readFileSync(path.join(dir, seg));
    buf[100]! ^= 0xff;
    writeFileSync(path.join(dir, seg), buf);
    const bad = eddydb(['verify', '--data-dir', dir]);
    expect(bad.code).to.equal(1);
    expect(bad.stdout).to.match(new RegExp(`BAD ${seg}.*at byte \\d+`));
  });

  it('snapshots and compacts, leaving the data readable', async () => {
    const db = await Database.open({ dataDir: dir });
    for (let i = 0; i < 10; i++) await db.records.insert('items', { n: i });
    await db.close();
    expect(eddydb(['snapshot', '--data-dir', dir]).code).to.equal(0);
    const db2 = await Database.open({ dataDir: dir });
    for (let i = 0; i < 10; i++) await db2.records.insert('items', { n: i });
    await db2.close();
    expect(eddydb(['compact', '--data-dir', dir]).code).to.equal(0);
    expect(readdirSync(dir).filter((f) => f.endsWith('.snap'))).to.have.length(1);
    const db3 = await Database.open({ dataDir: dir });
    expect(await db3.records.count('items')).to.equal(20);
    await db3.close();
  });

  it('refuses to touch a data directory a live process holds, after waiting --lock-wait for it', async () => {
    const db = await Database.open({ dataDir: dir });
    try {
      const tools = [
        ['snapshot'],
        ['compact'],
        ['verify'],
        ['export', '--collection', 'c'],
        ['import', '--collection', 'c', '--create'],
      ];
      const runs = tools.map((tool) => spawnCli([...tool, '--data-dir', dir, '--lock-wait', '1']));
      for (const [i, run] of runs.entries()) {
        const tool = tools[i]![0];
        expect((await run.exited).code, tool).to.equal(1);
        expect(run.output(), tool).to.include(
          `data directory ${dir} is locked by process ${process.pid}; waiting up to 1 s`,
        );
        expect(run.output(), tool).to.include(
          `Data directory ${dir} is in use by process ${process.pid} (still held after waiting 1 s)`,
        );
      }
    } finally {
      await db.close();
    }
  });
});
