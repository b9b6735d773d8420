/**
 * The real `eddydb` process. Help in every form exits 0 and starts
 * nothing; a mistake on the command line exits 2 with one line; a port in
 * use exits 1 with one line, writes no admin key, prints none, and does not
 * even create the data directory.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { runCli } from '../helpers/run-cli.js';
import { tempDir, removeDir } from '../helpers/temp-dir.js';

describe('eddydb, the process', function () {
  this.timeout(60_000);

  for (const argv of [['--help'], ['-h'], ['help'], ['help', 'export'], ['start', '--help'], ['import', '-h']]) {
    it(`prints help and exits 0 for 'eddydb ${argv.join(' ')}'`, () => {
      const r = runCli(argv);
      expect(r.code).to.equal(0);
      expect(r.stderr).to.equal('');
      expect(r.stdout).to.match(/^(eddydb: an in-memory|usage: eddydb )/);
      expect(r.stdout).not.to.include('listening');
    });
  }

  it('exits 2 with one line and a suggestion for an unknown option', () => {
    const r = runCli(['--prot', '9000']);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.equal("eddydb: unknown option '--prot'; did you mean '--port'?\n");
    expect(r.stdout).to.equal('');
  });

  it('exits 2 with one line for a bad value in a flag or its environment variable', () => {
    const flag = runCli(['--port', 'abc']);
    expect([flag.code, flag.stderr]).to.deep.equal([
      2,
      "eddydb: invalid value for --port: 'abc' (a whole number from 0 to 65535)\n",
    ]);
    const env = runCli([], { env: { EDDYDB_DURABILITY: 'fast' } });
    expect([env.code, env.stderr]).to.deep.equal([
      2,
      "eddydb: invalid value for EDDYDB_DURABILITY: 'fast' (one of always, batch, none, replicated)\n",
    ]);
  });

  it('exits 2 naming an unknown command, and 2 for help on one', () => {
    expect(runCli(['strat'])).to.include({
      code: 2,
      stderr: "eddydb: unknown command 'strat'; did you mean 'start'?\n",
    });
    expect(runCli(['help', 'exprot'])).to.include({
      code: 2,
      stderr: "eddydb: unknown command 'exprot'; did you mean 'export'?\n",
    });
  });

  it('on a port in use exits 1 with one line, prints no admin key and writes nothing', async () => {
    const dir = tempDir('eddydb-cli-port-');
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const dataDir = path.join(dir, 'data');
      const r = runCli(['start', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir]);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.equal(
        `eddydb: port ${port} on 127.0.0.1 is already in use (is another server running?); stop it or choose ` +
          `another port with --port\n`,
      );
      expect(r.stdout).to.equal('');
      expect(existsSync(path.join(dataDir, 'admin.key'))).to.equal(false);
      expect(existsSync(dataDir)).to.equal(false);
    } finally {
      holder.close();
      removeDir(dir);
    }
  });

  it('prints the version for --version and starts nothing', () => {
    const r = runCli(['--version']);
    expect(r.code).to.equal(0);
    expect(r.stdout).to.match(/^\d+\.\d+\.\d+\n$/);
  });
});
