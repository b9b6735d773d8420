import { expect } from 'chai';
import { ManualClock } from '../../../../lib/engine/index.js';
import { FunctionHarness, rejection } from '../../../helpers/function-harness.js';

/** RFC 4648 base32 (TOTP secrets). */
function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let acc = 0;
  let out = '';
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += alphabet[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return bits > 0 ? out + alphabet[(acc << (5 - bits)) & 31] : out;
}

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

  describe('TotpGenerate and TotpVerify', () => {
    /** RFC 6238 Appendix B: time, then the SHA1, SHA256 and SHA512 codes (8 digits, 30 s). */
    const TABLE: readonly [number, string, string, string][] = [
      [59, '94287082', '46119246', '90693936'],
      [1111111109, '07081804', '68084774', '25091201'],
      [1111111111, '14050471', '67062674', '99943326'],
      [1234567890, '89005924', '91819424', '93441116'],
      [2000000000, '69279037', '90698825', '38618901'],
      [20000000000, '65353130', '77737706', '47863826'],
    ];
    const SEEDS = {
      sha1: base32(Buffer.from('12345678901234567890')),
      sha256: base32(Buffer.from('12345678901234567890123456789012')),
      sha512: base32(Buffer.from('1234567890123456789012345678901234567890123456789012345678901234')),
    };

    it('gives the RFC 6238 Appendix B codes for all three hashes', async () => {
      for (const [time, ...codes] of TABLE) {
        clock.set(time * 1000);
        for (const [i, algorithm] of (['sha1', 'sha256', 'sha512'] as const).entries()) {
          const step = { type: 'TotpGenerate', secret: SEEDS[algorithm], output_field: 'out', digits: 8, algorithm };
          expect(await one(step), `${algorithm} at ${time}`).to.equal(codes[i]);
          const check = {
            type: 'TotpVerify',
            code: '{{c}}',
            secret: SEEDS[algorithm],
            output_field: 'out',
            digits: 8,
            algorithm,
          };
          expect(await one(check, { c: codes[i] }), `${algorithm} at ${time}`).to.equal(true);
        }
      }
    });

    it('defaults to 6 digits, 30 s and sha1; reads lowercase and spaced secrets', async () => {
      clock.set(59_000);
      expect(await one({ type: 'TotpGenerate', secret: SEEDS.sha1, output_field: 'out' })).to.equal('287082');
      const spaced = SEEDS.sha1.toLowerCase().replace(/(.{4})/g, '$1 ');
      expect(await one({ type: 'TotpGenerate', secret: spaced, output_field: 'out' })).to.equal('287082');
      expect(await one({ type: 'TotpGenerate', secret: SEEDS.sha1, output_field: 'out', period: 60 })).to.not.equal(
        undefined,
      );
    });

    it('accepts codes within the skew (default 1 step) and refuses the rest', async () => {
      clock.set(1111111111_000);
      const verify = (code: unknown, extra: Record<string, unknown> = {}) =>
        one(
          { type: 'TotpVerify', code: '{{c}}', secret: SEEDS.sha1, output_field: 'out', digits: 8, ...extra },
          { c: code },
        );
      expect(await verify('07081804')).to.equal(true); // previous step (1111111109 is in it)
      clock.set(1111111111_000 + 60_000);
      expect(await verify('14050471')).to.equal(false); // two steps back
      expect(await verify('14050471', { skew: 2 })).to.equal(true);
      clock.set(1111111111_000);
      expect(await verify('14050471', { skew: 0 })).to.equal(true);
      expect(await verify(14050471)).to.equal(true);
      clock.set(1111111109_000);
      expect(await verify(7081804)).to.equal(true); // leading zero restored
      for (const bad of ['1405047', '140504710', 'abcdefgh', '', null, '14050472'])
        expect(await verify(bad), String(bad)).to.equal(false);
    });

    it('refuses bad members at save and a secret that is not base32 at run time', async () => {
      const define = (extra: Record<string, unknown>) => () =>
        h.define({
          label: `t${JSON.stringify(extra)}`,
          functions: [{ type: 'TotpGenerate', secret: 'GEZDGNBV', output_field: 'o', ...extra }],
        });
      expect(define({ digits: 7 })).to.throw('functions[0].digits: must be 6 or 8');
      expect(define({ algorithm: 'md5' })).to.throw(
        'functions[0].algorithm: must be one of sha1, sha256, sha512 (a literal)',
      );
      expect(define({ period: 0 })).to.throw('functions[0].period: must be an integer between 1 and 86400');
      expect(() =>
        h.define({
          label: 's',
          functions: [{ type: 'TotpVerify', code: '1', secret: 'A', output_field: 'o', skew: 11 }],
        }),
      ).to.throw('functions[0].skew: must be an integer between 0 and 10');
      const err = await rejection(h.run([{ type: 'TotpGenerate', secret: 'not base32!', output_field: 'o' }]));
      expect(err.message).to.match(/'secret' is not base32/);
      expect(err.message).to.not.include('not base32!');
    });
  });
});
