/**
 * An operator-chosen admin key must be able to hold 128 bits: counted as
 * its length times the bits per character of the smallest alphabet it is
 * written in (lib/cli/admin-key-strength.ts). The pure rule, the start's
 * configuration, and the real process refusing a short key.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { adminKeyStrength, weakAdminKeyReason } from '../../lib/cli/admin-key-strength.js';
import { startConfig } from '../../lib/cli/config.js';
import { runCli } from '../helpers/run-cli.js';
import { mulberry32 } from '../helpers/seeded-random.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';

describe('admin key strength', () => {
  it('counts each key in the smallest alphabet that holds it', () => {
    expect(adminKeyStrength('0'.repeat(39))).to.deep.equal({ bits: 129, length: 39, alphabet: 'decimal digits' });
    expect(adminKeyStrength('ab12'.repeat(8))).to.deep.equal({ bits: 128, length: 32, alphabet: 'hex digits' });
    expect(adminKeyStrength('AB12'.repeat(8)).alphabet).to.equal('hex digits');
    expect(adminKeyStrength('Ab12'.repeat(8)).alphabet, 'mixed-case hex is letters and digits').to.equal(
      'letters and digits',
    );
    expect(adminKeyStrength('correcthorse').alphabet).to.equal('lowercase letters');
    expect(adminKeyStrength('CorrectHorse').alphabet, 'mixed-case letters count as letters and digits').to.equal(
      'letters and digits',
    );
    expect(adminKeyStrength('a-b_c'.repeat(5))).to.include({ alphabet: 'base64url characters', bits: 150 });
    expect(adminKeyStrength('ab+/cd==')).to.deep.equal({ bits: 36, length: 6, alphabet: 'base64 characters' });
    expect(adminKeyStrength('p@ss word!')).to.include({ alphabet: 'characters', bits: 65 });
    expect(adminKeyStrength('🙂'.repeat(3))).to.include({ length: 3, alphabet: 'characters' });
  });

  it('needs 32 hex digits, 22 base64url characters or 20 printable ones, and accepts every generated form', () => {
    expect(weakAdminKeyReason(randomBytes(16).toString('hex'), 'K')).to.equal(undefined);
    expect(weakAdminKeyReason(randomBytes(16).toString('hex').slice(1), 'K')).to.match(
      /^K is too weak: 31 hex digits hold at most 124 bits, and an admin key needs 128/,
    );
    expect(weakAdminKeyReason('Q'.repeat(21) + '_', 'K')).to.equal(undefined);
    expect(weakAdminKeyReason('Q'.repeat(20) + '_', 'K')).to.match(/21 base64url characters hold at most 126 bits/);
    expect(weakAdminKeyReason('!'.repeat(20), 'K')).to.equal(undefined);
    expect(weakAdminKeyReason('!'.repeat(19), 'K')).to.match(/19 characters hold at most 124 bits/);
    // Seeded, so the rare random key that falls in a narrower alphabet (about 6 in a million) cannot make this flaky.
    const random = mulberry32(0x128b175);
    const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));
    for (let i = 0; i < 2000; i++) {
      expect(weakAdminKeyReason(bytes(24).toString('hex'), 'K'), 'openssl rand -hex 24').to.equal(undefined);
      expect(
        weakAdminKeyReason(bytes(16).toString('base64url').slice(0, 22), 'K'),
        '22 random base64url characters',
      ).to.equal(undefined);
      expect(weakAdminKeyReason(`eddy_admin_${bytes(24).toString('base64url')}`, 'K'), 'a generated key').to.equal(
        undefined,
      );
    }
  });

  it('is refused by the start configuration without echoing the key, and a strong one is kept', () => {
    const weak = 'short-secret-123';
    let message = '';
    try {
      startConfig(['start'], { EDDYDB_ADMIN_KEY: weak });
    } catch (err) {
      message = (err as Error).message;
      expect((err as Error).name).to.equal('UsageError');
    }
    expect(message).to.match(/^EDDYDB_ADMIN_KEY is too weak: 16 base64url characters hold at most 96 bits/);
    expect(message).to.include('openssl rand -hex 24');
    expect(message).not.to.include(weak);
    const strong = randomBytes(24).toString('hex');
    expect(startConfig(['start'], { EDDYDB_ADMIN_KEY: strong }).adminKey).to.equal(strong);
    expect(startConfig(['start'], {}).adminKey).to.equal(undefined);
  });

  it('stops the real process with exit 2 and one line before it opens the data directory', function () {
    this.timeout(60_000);
    const dir = tempDir('eddydb-weak-key-');
    try {
      const data = path.join(dir, 'data');
      const r = runCli(['start', '--port', '0', '--data-dir', data], { env: { EDDYDB_ADMIN_KEY: 'xyz123xyz123' } });
      expect(r.code).to.equal(2);
      expect(r.stderr).to.match(
        /^eddydb: EDDYDB_ADMIN_KEY is too weak: 12 lowercase letters and digits hold at most 62 bits, and an admin key needs 128 .*\n$/,
      );
      expect(r.stdout).to.equal('');
      expect(existsSync(data)).to.equal(false);
    } finally {
      removeDir(dir);
    }
  });
});
