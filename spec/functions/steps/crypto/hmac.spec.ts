import { expect } from 'chai';
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

  describe('HmacSign and HmacVerify', () => {
    /** RFC 4231 test cases 1, 2 and 4 (keys and data that are text or binary fields). */
    const RFC4231 = [
      {
        key: '\x0b'.repeat(20),
        data: 'Hi There',
        sha256: 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
        sha384: 'afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6',
        sha512:
          '87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854',
      },
      {
        key: 'Jefe',
        data: 'what do ya want for nothing?',
        sha256: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
        sha384: 'af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649',
        sha512:
          '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
      },
    ];

    it('gives the RFC 4231 vectors for sha256, sha384 and sha512, in hex and base64', async () => {
      for (const v of RFC4231) {
        for (const algorithm of ['sha256', 'sha384', 'sha512'] as const) {
          const step = { type: 'HmacSign', input: '{{d}}', secret: '{{k}}', output_field: 'out', algorithm };
          expect(await one(step, { d: v.data, k: v.key })).to.equal(v[algorithm]);
          expect(await one({ ...step, encoding: 'base64' }, { d: v.data, k: v.key })).to.equal(
            Buffer.from(v[algorithm], 'hex').toString('base64'),
          );
        }
      }
      expect(
        await one({ type: 'HmacSign', input: 'what do ya want for nothing?', secret: 'Jefe', output_field: 'out' }),
      ).to.equal(RFC4231[1]!.sha256);
    });

    it('gives the RFC 4231 test case 4 vector over a binary field', async () => {
      await h.db
        .session(undefined)
        .insert('blobs', { data: { type: 'Binary', value: Buffer.alloc(50, 0xcd).toString('base64') } });
      const key = Buffer.from(Array.from({ length: 25 }, (_, i) => i + 1)).toString('latin1');
      const r = await h.run(
        [
          { type: 'FindAll', collection: 'blobs' },
          { type: 'HmacSign', input: '{{data}}', secret: '{{k}}', output_field: 'mac' },
        ],
        { k: key },
      );
      expect(r.records[0]!.mac).to.equal('82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b');
    });

    it('verifies in constant time: right MAC true; wrong, truncated, other encoding or malformed false', async () => {
      const v = RFC4231[1]!;
      const step = (mac: string, extra: Record<string, unknown> = {}) =>
        one(
          { type: 'HmacVerify', input: v.data, secret: v.key, provided_mac: '{{m}}', output_field: 'out', ...extra },
          { m: mac },
        );
      expect(await step(v.sha256)).to.equal(true);
      expect(await step(v.sha256.toUpperCase())).to.equal(true);
      expect(await step(Buffer.from(v.sha256, 'hex').toString('base64'), { encoding: 'base64' })).to.equal(true);
      expect(await step(v.sha512, { algorithm: 'sha512' })).to.equal(true);
      const flipped = (v.sha256[0] === '0' ? '1' : '0') + v.sha256.slice(1);
      for (const bad of [flipped, v.sha256.slice(0, 62), `${v.sha256}00`, 'zz', '', v.sha384])
        expect(await step(bad), bad).to.equal(false);
      expect(await step(v.sha256, { encoding: 'base64' })).to.equal(false);
      expect(await step(v.sha256, { algorithm: 'sha512' })).to.equal(false);
    });

    it('refuses unknown algorithms and encodings at save, and an empty secret at run time', async () => {
      expect(() =>
        h.define({
          label: 'a',
          functions: [{ type: 'HmacSign', input: 'x', secret: 'k', output_field: 'o', algorithm: 'md5' }],
        }),
      ).to.throw('functions[0].algorithm: must be one of sha256, sha384, sha512 (a literal)');
      expect(() =>
        h.define({
          label: 'b',
          functions: [{ type: 'HmacSign', input: 'x', secret: 'k', output_field: 'o', encoding: 'base32' }],
        }),
      ).to.throw('functions[0].encoding: must be one of hex, base64 (a literal)');
      const err = await rejection(
        h.run([{ type: 'HmacSign', input: 'x', secret: '{{k}}', output_field: 'o' }], { k: '' }),
      );
      expect(err.message).to.equal("'secret' must not be empty");
    });
  });
});
