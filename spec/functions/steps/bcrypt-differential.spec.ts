/**
 * The server's bcrypt (lib/functions/steps/crypto/bcrypt/, run on worker
 * threads by the server or sliced on the event loop, and stoppable at the
 * call's time bound, where bcryptjs's async API holds the loop for up to
 * 100 ms at a time) checked against bcryptjs, the well-kept reference, in
 * both directions: bcryptjs verifies our hashes and we verify bcryptjs's,
 * over seeded random passwords (ASCII, multi-byte UTF-8, empty, and up to
 * the 72 bytes bcrypt reads; longer ones are refused here).
 */
import { expect } from 'chai';
import bcrypt from 'bcryptjs';
import { bcryptHash, bcryptVerify, parseBcryptHash, type ParsedBcryptHash } from '../../../lib/functions/steps/crypto/bcrypt/bcrypt-format.js';
import { SLICED_BCRYPT } from '../../../lib/functions/steps/crypto/bcrypt/bcrypt-runner.js';
import { mulberry32 } from '../../helpers/seeded-random.js';

const ALPHABET = ['a', 'Z', '0', ' ', '$', 'é', 'ß', '€', '漢', '🙂', '~'];
const parsed = (hash: string): ParsedBcryptHash => parseBcryptHash(hash)!;

function passwords(n: number): string[] {
  const random = mulberry32(0xb5c1);
  const out = ['', 'x', 'a'.repeat(71), 'a'.repeat(72), `${'é'.repeat(35)}z`];
  while (out.length < n) {
    const len = Math.floor(random() * 60);
    let s = '';
    for (let i = 0; i < len; i++) s += ALPHABET[Math.floor(random() * ALPHABET.length)];
    if (Buffer.byteLength(s) <= 72) out.push(s);
  }
  return out;
}

describe('functions: bcrypt against bcryptjs', () => {
  for (const [i, pw] of passwords(24).entries()) {
    it(`agrees on password #${i} (${Buffer.byteLength(pw)} bytes)`, async () => {
      const ours = await bcryptHash(pw, 4, SLICED_BCRYPT);
      expect(ours).to.match(/^\$2b\$04\$/);
      expect(bcrypt.compareSync(pw, ours), 'bcryptjs verifies our hash').to.equal(true);
      const theirs = parsed(bcrypt.hashSync(pw, 4));
      expect(await bcryptVerify(pw, theirs, SLICED_BCRYPT), 'we verify bcryptjs\'s hash').to.equal(true);
      const other = Buffer.byteLength(pw) < 72 ? `${pw}!` : `${pw.slice(0, -1)}!`;
      expect(await bcryptVerify(other, theirs, SLICED_BCRYPT), 'a different password fails').to.equal(false);
    });
  }

  it('gives the same digest as bcryptjs for the same salt', async () => {
    const salt = bcrypt.genSaltSync(5);
    const theirs = parsed(bcrypt.hashSync('correct horse battery staple', salt));
    expect(await bcryptVerify('correct horse battery staple', theirs, SLICED_BCRYPT)).to.equal(true);
    expect(await bcryptVerify('correct horse battery stapler', theirs, SLICED_BCRYPT)).to.equal(false);
  });

  it('refuses a password over 72 bytes of UTF-8 for hashing and verifying, where bcryptjs cuts it', async () => {
    const long = `${'é'.repeat(36)}z`;
    const cut = bcrypt.hashSync(long, 4);
    expect(bcrypt.compareSync(long.slice(0, 36), cut), 'bcryptjs matches the first 72 bytes alone').to.equal(true);
    for (const attempt of [bcryptHash(long, 4, SLICED_BCRYPT), bcryptVerify(long, parsed(cut), SLICED_BCRYPT)]) {
      const err = await attempt.then(() => undefined, (e: unknown) => e);
      expect(err).to.be.instanceOf(Error).with.property('message').that.matches(/73 bytes.*at most 72/);
    }
  });
});
