/**
 * `eddydb config` prints the configuration start would run with, each value
 * with its source and secrets redacted, and refuses what start would refuse;
 * `eddydb start --config FILE` runs with the file's values (here: TLS, the
 * admin key, a memory-only server on a free loopback port).
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { runCli, spawnCli } from '../helpers/run-cli.js';
import { makeCertificate } from '../helpers/tls-certificate.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

const ADMIN_KEY = 'cfg-admin-key-0123456789abcdef';
const OPENAI_KEY = 'sk-openai-from-the-environment';
const PEER_KEY = 'peer-key-from-the-file';

/** The line of `output` that sets (or comments) `key`, its spaces squeezed. */
function lineFor(output: string, key: string): string | undefined {
  return output
    .split('\n')
    .find((l) => l.startsWith(`${key} =`) || l.startsWith(`# ${key}:`) || l.startsWith(`# ${key} =`))
    ?.replace(/\s+/g, ' ');
}

describe('eddydb config and eddydb start --config', function () {
  this.timeout(60_000);
  let dir: string;

  before(() => (dir = tempDir('eddydb-config-command-')));
  after(() => removeDir(dir));

  it('prints each value with its source (flag, env, file, default), secrets redacted', () => {
    const file = path.join(dir, 'eddydb.toml');
    writeFileSync(
      file,
      [
        'port = 9100',
        `admin-key = "${ADMIN_KEY}"`,
        '[start]',
        'host = "127.0.0.1"',
        `ripple-peers = ["http://peer:8080|${PEER_KEY}"]`,
        'smtp-password = "mail-password"',
      ].join('\n'),
    );
    const r = runCli(['config', '--config', file, '--durability', 'batch'], {
      env: { EDDYDB_TOKEN_TTL: '120', OPENAI_API_KEY: OPENAI_KEY },
    });
    expect(r.code, r.stderr).to.equal(0);
    const out = r.stdout;
    expect(lineFor(out, 'durability')).to.equal('durability = "batch" # flag --durability');
    expect(lineFor(out, 'token-ttl')).to.equal('token-ttl = 120 # env EDDYDB_TOKEN_TTL');
    expect(lineFor(out, 'port')).to.equal(`port = 9100 # file ${file} line 1`);
    expect(lineFor(out, 'host')).to.equal(`host = "127.0.0.1" # file ${file} line 4`);
    expect(lineFor(out, 'rate-limit')).to.equal('rate-limit = 0 # default');
    expect(lineFor(out, 'data-dir')).to.equal('data-dir = "./data" # default');
    expect(lineFor(out, 'memory')).to.equal('memory = false # default');
    expect(lineFor(out, 'tls-cert')).to.equal('# tls-cert: none # default');
    expect(lineFor(out, 'config')).to.equal(`# config = "${file}" # flag --config`);
    expect(lineFor(out, 'admin-key')).to.equal(`admin-key = "(redacted)" # file ${file} line 2`);
    expect(lineFor(out, 'openai-api-key')).to.equal('openai-api-key = "(redacted)" # env OPENAI_API_KEY');
    expect(lineFor(out, 'smtp-password')).to.equal(`smtp-password = "(redacted)" # file ${file} line 6`);
    expect(lineFor(out, 'ripple-peers')).to.equal(
      `ripple-peers = ["http://peer:8080|(redacted)"] # file ${file} line 5`,
    );
    for (const secret of [ADMIN_KEY, OPENAI_KEY, PEER_KEY, 'mail-password']) expect(out).to.not.include(secret);
    expect(out).to.not.match(/^(help|version)\b/m);
  });

  it('refuses what start would refuse, with the same one line (exit 2)', () => {
    const weak = runCli(['config'], { env: { EDDYDB_ADMIN_KEY: 'short' } });
    expect(weak.code).to.equal(2);
    expect(weak.stderr).to.include('EDDYDB_ADMIN_KEY');
    const half = runCli(['config', '--tls-cert', 'server.crt']);
    expect(half.code).to.equal(2);
    expect(half.stderr).to.include('--tls-cert needs --tls-key');
    const typo = path.join(dir, 'typo.toml');
    writeFileSync(typo, 'prot = 1\n');
    const unknown = runCli(['config', '--config', typo]);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr.trim()).to.equal(`eddydb: unknown key 'prot' in ${typo} line 1; did you mean 'port'?`);
  });

  it('starts a server with the values of the file', async () => {
    const cert = makeCertificate(dir, 'server');
    const file = path.join(dir, 'start.toml');
    writeFileSync(
      file,
      [
        `admin-key = "${ADMIN_KEY}"`,
        '[start]',
        'memory = true',
        'port = 0',
        'host = "127.0.0.1"',
        `tls-cert = ${JSON.stringify(cert.certFile)}`,
        `tls-key = ${JSON.stringify(cert.keyFile)}`,
        'log-level = "warn"',
      ].join('\n'),
    );
    const cli = spawnCli(['start', '--config', file]);
    try {
      await until('the listening line', () => /listening on https:\/\/127\.0\.0\.1:\d+/.test(cli.output()), 30_000);
      const port = /listening on https:\/\/127\.0\.0\.1:(\d+)/.exec(cli.output())![1];
      // The file's admin key is the server's: it gets a token.
      const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = https.request(
          `https://127.0.0.1:${port}/api/auth/token`,
          { method: 'POST', ca: cert.cert, headers: { 'content-type': 'application/json' } },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ api_key: ADMIN_KEY }));
      });
      expect(reply.status, reply.body).to.equal(200);
      expect(JSON.parse(reply.body).token).to.be.a('string');
      // log-level = "warn": no startup summary at info.
      expect(cli.output()).to.not.include('server started');
      cli.proc.kill('SIGTERM');
      expect(await cli.exited, cli.output()).to.deep.equal({ code: 0, signal: null });
    } finally {
      cli.proc.kill('SIGKILL');
    }
  });
});
