/**
 * The server's bcrypt (lib/functions/steps/crypto/bcrypt/, which yields to
 * the event loop every half millisecond and stops at the call's time bound,
 * where bcryptjs's async API holds the loop for up to 100 ms at a time)
 * checked against bcryptjs, the well-kept reference, in both directions:
 * bcryptjs verifies our hashes and we verify bcryptjs's, over seeded random
 * passwords (ASCII, multi-byte UTF-8, empty, and past the 72-byte cut).
 */
import { expect } from 'chai';
import bcrypt from 'bcryptjs';
import { bcryptHash, bcryptVerify } from '../../../lib/functions/steps/crypto/bcrypt/bcrypt-format.js';
import { mulberry32 } from '../../helpers/seeded-random.js';

const ALPHABET = ['a', 'Z', '0', ' ', '$', 'é', 'ß', '€', '漢', '🙂', '~'];
const yieldNow = () => new Promise<void>((r) => setImmediate(r));

function passwords(n: number): string[] {
  const random = mulberry32(0xb5c1);
  const out = ['', 'x', 'a'.repeat(72), 'a'.repeat(73), `${'é'.repeat(36)}z`];
  while (out.length < n) {
    const len = Math.floor(random() * 90);
    let s = '';
    for (let i = 0; i < len; i++) s += ALPHABET[Math.floor(random() * ALPHABET.length)];
    out.push(s);
  }
  return out;
}

describe('functions: bcrypt against bcryptjs', () => {
  for (const [i, pw] of passwords(24).entries()) {
    it(`agrees on password #${i} (${Buffer.byteLength(pw)} bytes)`, async () => {
      const ours = await bcryptHash(pw, 4, yieldNow);
      expect(ours).to.match(/^\$2b\$04\$/);
      expect(bcrypt.compareSync(pw, ours), 'bcryptjs verifies our hash').to.equal(true);
      const theirs = bcrypt.hashSync(pw, 4);
      expect(await bcryptVerify(pw, theirs, yieldNow), 'we verify bcryptjs\'s hash').to.equal(true);
      expect(await bcryptVerify(`${pw}!`, theirs, yieldNow) || Buffer.byteLength(pw) >= 72, 'a different password fails').to.equal(Buffer.byteLength(pw) >= 72);
    });
  }

  it('gives the same digest as bcryptjs for the same salt', async () => {
    const salt = bcrypt.genSaltSync(5);
    const theirs = bcrypt.hashSync('correct horse battery staple', salt);
    expect(await bcryptVerify('correct horse battery staple', theirs, yieldNow)).to.equal(true);
    expect(await bcryptVerify('correct horse battery stapler', theirs, yieldNow)).to.equal(false);
  });
});
