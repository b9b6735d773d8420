/**
 * The offline tools on a wrong path or wrong input, as real
 * processes. A mistyped --data-dir is refused (exit 1) and nothing is
 * created, unless --create; verify of a damaged directory reports without
 * a stack trace and counts records; exporting a collection that does not
 * exist is exit 1; a JSON array given to import is refused once, and read
 * with --format json.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Database } from '../../lib/engine/index.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir, removeDir } from '../helpers/temp-dir.js';
import { snapshotsOf } from '../helpers/data-files.js';

describe('offline tools on a wrong path or input', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir('eddydb-cli-refuse-');
  });
  afterEach(() => removeDir(dir));

  async function seed(dataDir: string): Promise<void> {
    const db = await Database.open({ dataDir });
    for (let i = 0; i < 5; i++) await db.records.insert('items', { n: i });
    await db.snapshot();
    for (let i = 0; i < 3; i++) await db.records.insert('people', { n: i });
    await db.close();
  }

  const tools: Array<[string, string[], boolean]> = [
    ['snapshot', [], true],
    ['compact', [], true],
    ['verify', [], false],
    ['export', ['--collection', 'items'], false],
    ['import', ['--collection', 'items'], true],
  ];
  for (const [tool, extra, offersCreate] of tools) {
    it(`${tool} on a data directory that does not exist exits 1 and creates nothing`, () => {
      const missing = path.join(dir, 'dta');
      const r = runCli([tool, '--data-dir', missing, ...extra], { input: '{"n":1}\n' });
      expect(r.code).to.equal(1);
      expect(r.stderr).to.equal(
        `eddydb: no EddyDB data directory at ${missing}${offersCreate ? '; pass --create to make one' : ''}\n`,
      );
      expect(existsSync(missing)).to.equal(false);
    });
  }

  it('refuses an existing directory without EddyDB files, and makes a database there with --create', () => {
    const r = runCli(['import', '--data-dir', dir, '--collection', 'items'], { input: '{"n":1}\n' });
    expect(r.code).to.equal(1);
    expect(readdirSync(dir)).to.deep.equal([]);
    const created = runCli(['import', '--data-dir', dir, '--collection', 'items', '--create'], { input: '{"n":1}\n' });
    expect(created.code).to.equal(0);
    expect(created.stderr).to.include("imported 1 records into 'items', 0 failed");
  });

  it('verify reports an unreadable file and a damaged snapshot as findings, without a stack trace, and counts records', async () => {
    await seed(dir);
    const ok = runCli(['verify', '--data-dir', dir]);
    expect(ok.code).to.equal(0);
    expect(ok.stdout).to.match(/ok {2}snapshot-\d+\.snap {2}5 records in 1 collection/);
    expect(ok.stdout).to.match(/log-\d+\.seg {2}3 batches, 3 record writes/);
    expect(ok.stdout).to.include(
      'records it would load, per collection:\n  items   5\n  people  3\n  total: 8 records in 2 collections',
    );
    const segment = readdirSync(dir)
      .filter((f) => f.endsWith('.seg'))
      .sort()
      .at(-1)!;
    rmSync(path.join(dir, segment));
    mkdirSync(path.join(dir, segment));
    writeFileSync(path.join(dir, snapshotsOf(dir).at(-1)!), 'not a snapshot');
    const bad = runCli(['verify', '--data-dir', dir]);
    expect(bad.code).to.equal(1);
    expect(bad.stdout).to.match(new RegExp(`BAD ${segment}.*cannot be read: EISDIR`));
    expect(bad.stdout).to.include('a normal start would REFUSE');
    expect(bad.stdout + bad.stderr).not.to.match(/\n\s+at /);
  });

  it('export of a collection that does not exist exits 1 naming the closest one, and creates no output file', async () => {
    await seed(dir);
    const out = path.join(dir, 'out.ndjson');
    const r = runCli(['export', '--data-dir', dir, '--collection', 'peeple', '--out', out]);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.equal(`eddydb: collection 'peeple' does not exist in ${dir} (did you mean 'people'?)\n`);
    expect(existsSync(out)).to.equal(false);
  });

  it('import into a missing collection needs --create', async () => {
    await seed(dir);
    const r = runCli(['import', '--data-dir', dir, '--collection', 'orders'], { input: '{"n":1}\n' });
    expect(r.code).to.equal(1);
    expect(r.stderr).to.equal(
      `eddydb: collection 'orders' does not exist in ${dir} (it has items, people); pass --create to make it\n`,
    );
  });

  it('import of a JSON array says so once and imports nothing; --format json reads it', async () => {
    await seed(dir);
    const array = JSON.stringify([{ n: 10 }, { n: 11 }, { n: 12 }], null, 2);
    const r = runCli(['import', '--data-dir', dir, '--collection', 'items'], { input: array });
    expect(r.code).to.equal(1);
    expect(r.stderr).to.equal(
      'eddydb: input is a JSON array; import expects NDJSON (one record per line); use --format json to read an array\n',
    );
    const json = runCli(['import', '--data-dir', dir, '--collection', 'items', '--format', 'json'], { input: array });
    expect(json.code).to.equal(0);
    expect(json.stderr).to.include("imported 3 records into 'items', 0 failed");
    const db = await Database.open({ dataDir: dir });
    expect(await db.records.count('items')).to.equal(8);
    await db.close();
    const ndjson = runCli(['import', '--data-dir', dir, '--collection', 'items', '--format', 'json'], {
      input: '{"n":1}\n{"n":2}\n',
    });
    expect(ndjson.code).to.equal(1);
    expect(ndjson.stderr).to.match(
      /^eddydb: input is not valid JSON \(.*\); for NDJSON \(one record per line\) leave out --format json\n$/,
    );
  });
});
