/**
 * `eddydb start --tls-cert --tls-key` as a real process: it answers over
 * HTTPS, SIGHUP serves a renewed pair to new connections while an open
 * keep-alive connection goes on, and a bad renewal is logged and changes
 * nothing. Both files or neither; a missing file or a key of another
 * certificate stops the start with one line naming it.
 */
import { expect } from 'chai';
import { copyFileSync, renameSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { runCli, spawnCli } from '../helpers/run-cli.js';
import { makeCertificate, type TestCertificate } from '../helpers/tls-certificate.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

/** GET `url` trusting `ca`; the status, the certificate the connection was made with, and whether it was reused. */
function get(
  url: string,
  ca: Buffer[],
  agent?: https.Agent,
): Promise<{ status: number; fingerprint: string; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca, agent: agent ?? false }, (res) => {
      const fingerprint = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, fingerprint, reused: req.reusedSocket }));
    });
    req.on('error', reject);
  });
}

/** Puts `from`'s files in place of the served ones, each by an atomic rename, as a renewal tool does. */
function install(from: { certFile: string; keyFile: string }, served: { certFile: string; keyFile: string }): void {
  for (const [source, target] of [
    [from.certFile, served.certFile],
    [from.keyFile, served.keyFile],
  ] as const) {
    copyFileSync(source, `${target}.new`);
    renameSync(`${target}.new`, target);
  }
}

describe('eddydb start with TLS', function () {
  this.timeout(60_000);
  let dir: string;
  let first: TestCertificate;
  let second: TestCertificate;

  before(() => {
    dir = tempDir('eddydb-cli-tls-');
    first = makeCertificate(dir, 'first');
    second = makeCertificate(dir, 'second');
  });
  after(() => removeDir(dir));

  it('answers over HTTPS and serves a renewed pair after SIGHUP, keeping open connections', async () => {
    const served = { certFile: path.join(dir, 'served.crt'), keyFile: path.join(dir, 'served.key') };
    install(first, served);
    const cli = spawnCli([
      'start',
      '--memory',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--tls-cert',
      served.certFile,
      '--tls-key',
      served.keyFile,
    ]);
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: [first.cert, second.cert] });
    try {
      await until('the listening line', () => /listening on https:\/\/127\.0\.0\.1:\d+/.test(cli.output()), 30_000);
      const port = /listening on https:\/\/127\.0\.0\.1:(\d+)/.exec(cli.output())![1];
      const url = `https://127.0.0.1:${port}/api/health`;
      expect(await get(url, [first.cert], agent)).to.include({ status: 200, fingerprint: first.fingerprint256 });

      install(second, served);
      cli.proc.kill('SIGHUP');
      await until('the reload', () => cli.output().includes('TLS certificate reloaded'), 10_000);
      expect(await get(url, [first.cert], agent)).to.include({ reused: true, fingerprint: first.fingerprint256 });
      expect(await get(url, [second.cert])).to.include({ status: 200, fingerprint: second.fingerprint256 });

      // A key that is not the certificate's: logged, and the renewed pair stays.
      copyFileSync(first.keyFile, served.keyFile);
      cli.proc.kill('SIGHUP');
      await until('the refusal', () => cli.output().includes('TLS certificate not reloaded'), 10_000);
      expect(cli.output()).to.include('is not the key of the certificate');
      expect(await get(url, [second.cert])).to.include({ status: 200, fingerprint: second.fingerprint256 });

      cli.proc.kill('SIGTERM');
      expect(await cli.exited, cli.output()).to.deep.equal({ code: 0, signal: null });
    } finally {
      agent.destroy();
      cli.proc.kill('SIGKILL');
    }
  });

  it('takes both files or neither, naming the one missing (exit 2)', () => {
    const noKey = runCli(['start', '--memory', '--tls-cert', first.certFile]);
    expect(noKey.code).to.equal(2);
    expect(noKey.stderr).to.include('--tls-cert needs --tls-key (or EDDYDB_TLS_KEY)');
    const noCert = runCli(['start', '--memory'], { env: { EDDYDB_TLS_KEY: first.keyFile } });
    expect(noCert.code).to.equal(2);
    expect(noCert.stderr).to.include('--tls-key needs --tls-cert (or EDDYDB_TLS_CERT)');
  });

  it('refuses to start with a file it cannot read or a key of another certificate (exit 1, one line)', () => {
    const missing = path.join(dir, 'missing.crt');
    const unreadable = runCli(['start', '--memory', '--tls-cert', missing, '--tls-key', first.keyFile]);
    expect(unreadable.code).to.equal(1);
    expect(unreadable.stderr.trim()).to.equal(
      `eddydb: cannot read the TLS certificate (--tls-cert) ${missing}: no such file`,
    );
    const mismatched = runCli(['start', '--memory', '--tls-cert', first.certFile, '--tls-key', second.keyFile]);
    expect(mismatched.code).to.equal(1);
    expect(mismatched.stderr).to.include(
      `the TLS key ${second.keyFile} is not the key of the certificate ${first.certFile}`,
    );
    expect(mismatched.stderr.trim().split('\n')).to.have.length(1);
    const notPem = runCli(['start', '--memory', '--tls-cert', first.keyFile, '--tls-key', first.keyFile]);
    expect(notPem.code).to.equal(1);
    expect(notPem.stderr).to.include(`the TLS certificate ${first.keyFile} is not a PEM certificate`);
  });
});
