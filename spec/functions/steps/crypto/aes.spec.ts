import { expect } from 'chai';
import { createCipheriv } from 'node:crypto';
import { ManualClock } from '../../../../lib/engine/index.js';
import { FunctionHarness, rejection } from '../../../helpers/function-harness.js';

describe('functions: crypto steps', () => {
  let h: FunctionHarness;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock(Date.UTC(2026, 0, 1));
    h = await FunctionHarness.open({ clock });
  });
  afterEach(async () => {
    await h.close();
  });

  const one = async (step: Record<string, unknown>, params: Record<string, unknown> = {}) =>
    (await h.run([step], params)).records[0]!.out;

  describe('AesEncrypt and AesDecrypt', () => {
    /**
     * The GCM specification's test cases 13-15 (McGrew and Viega; NIST's GCM reference): AES-256, 96-bit IV, no AAD.
     */
    const zeroKey = '00'.repeat(32);
    const sealed = (ctHex: string, tagHex: string, ivHex: string) => ({
      ciphertext: Buffer.from(ctHex + tagHex, 'hex').toString('base64'),
      nonce: Buffer.from(ivHex, 'hex').toString('base64'),
    });
    const decrypt = (box: unknown, key: string, extra: Record<string, unknown> = {}) =>
      one(
        { type: 'AesDecrypt', ciphertext_field: 'box', key: '{{k}}', output_field: 'out', ...extra },
        { box, k: key },
      );

    it('decrypts the GCM test vectors (256-bit key, 96-bit IV)', async () => {
      expect(await decrypt(sealed('', '530f8afbc74536b9a963b4f1c4cb738b', '00'.repeat(12)), zeroKey)).to.equal('');
      expect(
        await decrypt(
          sealed('cea7403d4d606b6e074ec5d3baf39d18', 'd0d1c8a799996bf0265b98b5d48ab919', '00'.repeat(12)),
          zeroKey,
        ),
      ).to.equal('\0'.repeat(16));
      // Test case 15's plaintext is binary: node's GCM must give its ciphertext and tag, and the step reads that text
      // as not UTF-8 (null).
      const key15 = 'feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308';
      const p15 =
        'd9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255';
      const c15 =
        '522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad';
      const cipher = createCipheriv(
        'aes-256-gcm',
        Buffer.from(key15, 'hex'),
        Buffer.from('cafebabefacedbaddecaf888', 'hex'),
      );
      expect(Buffer.concat([cipher.update(Buffer.from(p15, 'hex')), cipher.final()]).toString('hex')).to.equal(c15);
      expect(cipher.getAuthTag().toString('hex')).to.equal('b094dac5d93471bdec1a502270e3cc6c');
      expect(
        await decrypt(sealed(c15, 'b094dac5d93471bdec1a502270e3cc6c', 'cafebabefacedbaddecaf888'), key15),
      ).to.equal(null);
    });

    it('round-trips text with a random 12-byte nonce, under every key encoding', async () => {
      const raw = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7));
      for (const [encoding, key] of [
        ['hex', raw.toString('hex')],
        ['base64', raw.toString('base64')],
        ['base64url', raw.toString('base64url')],
      ] as const) {
        const r = await h.run(
          [
            { type: 'AesEncrypt', plaintext: '{{msg}}', key: '{{k}}', key_encoding: encoding, output_field: 'box' },
            {
              type: 'AesDecrypt',
              ciphertext_field: 'box',
              key: '{{k}}',
              key_encoding: encoding,
              output_field: 'plain',
            },
          ],
          { msg: 'secret note ✓', k: key },
        );
        const box = r.records[0]!.box as { ciphertext: string; nonce: string };
        expect(Buffer.from(box.nonce, 'base64')).to.have.length(12);
        expect(Buffer.from(box.ciphertext, 'base64')).to.have.length(Buffer.byteLength('secret note ✓') + 16);
        expect(r.records[0]!.plain).to.equal('secret note ✓');
      }
      const a = await one({ type: 'AesEncrypt', plaintext: 'same', key: zeroKey, output_field: 'out' });
      const b = await one({ type: 'AesEncrypt', plaintext: 'same', key: zeroKey, output_field: 'out' });
      expect((a as { nonce: string }).nonce).to.not.equal((b as { nonce: string }).nonce);
    });

    it('gives null for a wrong key, a tampered ciphertext, tag or nonce, or a malformed box', async () => {
      const box = (await one({
        type: 'AesEncrypt',
        plaintext: 'pay 10 to bob',
        key: zeroKey,
        output_field: 'out',
      })) as { ciphertext: string; nonce: string };
      expect(await decrypt(box, zeroKey)).to.equal('pay 10 to bob');
      expect(await decrypt(box, `01${'00'.repeat(31)}`)).to.equal(null);
      const ct = Buffer.from(box.ciphertext, 'base64');
      const flip = (buf: Buffer, i: number) => {
        const c = Buffer.from(buf);
        c[i] = c[i]! ^ 1;
        return c.toString('base64');
      };
      expect(await decrypt({ ...box, ciphertext: flip(ct, 0) }, zeroKey)).to.equal(null);
      expect(await decrypt({ ...box, ciphertext: flip(ct, ct.length - 1) }, zeroKey)).to.equal(null);
      expect(await decrypt({ ...box, ciphertext: ct.subarray(0, ct.length - 1).toString('base64') }, zeroKey)).to.equal(
        null,
      );
      expect(await decrypt({ ...box, nonce: flip(Buffer.from(box.nonce, 'base64'), 3) }, zeroKey)).to.equal(null);
      for (const bad of [
        { ciphertext: box.ciphertext },
        { ...box, nonce: 'AAAA' },
        { ...box, ciphertext: 'AA' },
        { ...box, ciphertext: '!!' },
        'text',
        5,
        null,
      ]) {
        expect(await decrypt(bad, zeroKey), JSON.stringify(bad)).to.equal(null);
      }
    });

    it('fails the step for a key that is not 256 bits (never echoing it) or a missing field', async () => {
      for (const [key, encoding] of [
        ['00'.repeat(16), 'hex'],
        ['zz'.repeat(32), 'hex'],
        [Buffer.alloc(31).toString('base64'), 'base64'],
      ] as const) {
        const err = await rejection(
          h.run([{ type: 'AesEncrypt', plaintext: 'x', key: '{{k}}', key_encoding: encoding, output_field: 'o' }], {
            k: key,
          }),
        );
        expect(err.message).to.equal(`'key' must be a 256-bit AES key: 32 bytes in ${encoding}`);
      }
      const err = await rejection(
        h.run([{ type: 'AesDecrypt', ciphertext_field: 'nope', key: zeroKey, output_field: 'o' }]),
      );
      expect(err.message).to.equal("'ciphertext_field': no field 'nope'");
    });
  });
});
