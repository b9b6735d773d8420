import { expect } from 'chai';
import { createCipheriv } from 'node:crypto';
import { ManualClock } from '../../../lib/engine/index.js';
import { BcryptWorkerPool, functionEnv } from '../../../lib/functions/index.js';
import { FunctionHarness, rejection } from '../../helpers/function-harness.js';

/** RFC 4648 base32 (TOTP secrets). */
function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let acc = 0;
  let out = '';
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) { bits -= 5; out += alphabet[(acc >> bits) & 31]; }
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
  afterEach(async () => { await h.close(); });

  const one = async (step: Record<string, unknown>, params: Record<string, unknown> = {}) => (await h.run([step], params)).records[0]!.out;

  describe('BcryptHash and BcryptVerify', () => {
    /** OpenBSD / jBCrypt / crypt_blowfish published test hashes. */
    const KNOWN: readonly [string, string][] = [
      ['', '$2a$06$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s.'],
      ['a', '$2a$06$m0CrhHm10qJ3lXRY.5zDGO3rS2KdeeWLuGmsfGlMfOxih58VYVfxe'],
      ['abc', '$2a$06$If6bvum7DFjUnE9p2uDeDu0YHzrHM6tf.iqN8.yx.jNN1ILEf7h0i'],
      ['abcdefghijklmnopqrstuvwxyz', '$2a$06$.rCVZVOThsIa97pEDOxvGuRRgzG64bvtJ0938xuqzv18d3ZpQhstC'],
      ['~!@#$%^&*()      ~!@#$%^&*()PNBFRD', '$2a$06$fPIsBO8qRqkjj273rfaOI.HtSV9jLDpTbZn782DC6/t7qT67P6FfO'],
      ['U*U', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW'],
      ['U*U*', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK'],
      ['U*U*U', '$2a$05$XXXXXXXXXXXXXXXXXXXXXOAcXxm9kjPGEMsLznoKqmqw7tc8WCx4a'],
    ];
    const verify = (plain: string, hash: unknown) =>
      one({ type: 'BcryptVerify', plain: '{{p}}', hash_field: 'h', output_field: 'out' }, { p: plain, h: hash });

    it('verifies the published known hashes, and refuses a wrong password', async () => {
      for (const [plain, hash] of KNOWN) {
        expect(await verify(plain, hash), plain).to.equal(true);
        expect(await verify(`${plain}x`, hash), plain).to.equal(false);
        expect(await verify(plain, hash.replace('$2a$', '$2b$')), plain).to.equal(true);
      }
    });

    it('hashes as $2b$ with the cost asked (default 12) and a fresh salt each time', async () => {
      const r = await h.run([{ type: 'BcryptHash', plain: '{{p}}', output_field: 'password_hash', cost: 4 }], { p: 'hunter2' });
      const hash = r.records[0]!.password_hash as string;
      expect(hash).to.match(/^\$2b\$04\$[./A-Za-z0-9]{53}$/);
      expect(await verify('hunter2', hash)).to.equal(true);
      expect(await verify('hunter3', hash)).to.equal(false);
      expect(await one({ type: 'BcryptHash', plain: 'hunter2', output_field: 'out', cost: 4 })).to.not.equal(hash);
      const fn = h.define({ label: 'default_cost', functions: [{ type: 'BcryptHash', plain: 'x', output_field: 'h' }] });
      expect((fn.steps[0]!.config as { cost: number }).cost).to.equal(12);
    });

    it('refuses passwords over 72 bytes of UTF-8 with a 400 in both steps, where other bcrypts cut them', async () => {
      const longest = `${'é'.repeat(35)}ab`;
      const hash = await one({ type: 'BcryptHash', plain: '{{p}}', output_field: 'out', cost: 4 }, { p: longest });
      expect(await verify(longest, hash)).to.equal(true);
      expect(await verify(`${longest.slice(0, -1)}c`, hash), 'the 72nd byte counts').to.equal(false);
      const hashing = await rejection(one({ type: 'BcryptHash', plain: '{{p}}', output_field: 'out', cost: 4 }, { p: `${longest}c` }));
      expect(hashing.message).to.match(/73 bytes of UTF-8; bcrypt reads at most 72/);
      expect((hashing as { code?: string }).code).to.equal('INVALID_INPUT');
      const verifying = await rejection(verify(`${longest}c`, hash));
      expect(verifying.message).to.match(/73 bytes of UTF-8; bcrypt reads at most 72/);
    });

    it('refuses a cost above function_bcrypt_max_cost (default 14) before any work, naming the cost and the limit', async () => {
      const hashing = await rejection(h.run([{ type: 'BcryptHash', plain: 'x', output_field: 'h', cost: 15 }]));
      expect(hashing.message).to.equal('BcryptHash cost 15 is above this server\'s limit of 14 (setting function_bcrypt_max_cost): each step of cost doubles the work');
      expect((hashing as { code?: string }).code).to.equal('INVALID_INPUT');
      const started = performance.now();
      const verifying = await rejection(verify('a', '$2b$31$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s.'));
      expect(verifying.message).to.match(/^The bcrypt hash's cost 31 is above this server's limit of 14/);
      expect(performance.now() - started, 'refused, not computed').to.be.lessThan(1000);
      await h.db.updateSettings({ function_bcrypt_max_cost: 4 });
      expect((await rejection(verify('', KNOWN[0]![1]))).message).to.match(/cost 6 is above this server's limit of 4/);
      await h.db.updateSettings({ function_bcrypt_max_cost: 6 });
      expect(await verify('', KNOWN[0]![1])).to.equal(true);
    });

    it('gives false for a missing field, a value that is not a bcrypt hash, or a $2x$ hash', async () => {
      expect(await one({ type: 'BcryptVerify', plain: 'a', hash_field: 'nope', output_field: 'out' })).to.equal(false);
      for (const bad of ['', 'plain', 42, '$2a$06$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s', '$2x$06$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s.', '$2a$03$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s.']) {
        expect(await verify('', bad), String(bad)).to.equal(false);
      }
    });

    it('checks the cost at save (4 to 31)', () => {
      for (const cost of [3, 32, 10.5, '12']) {
        expect(() => h.define({ label: `c${cost}`, functions: [{ type: 'BcryptHash', plain: 'x', output_field: 'h', cost }] }))
          .to.throw('functions[0].cost: must be an integer between 4 and 31');
      }
    });

    it('yields to the event loop while hashing without a worker pool, and stops at the call time bound', async () => {
      let ticks = 0;
      const timer = setInterval(() => { ticks++; }, 1);
      try {
        await h.run([{ type: 'BcryptHash', plain: 'x', output_field: 'h', cost: 10 }]);
      } finally {
        clearInterval(timer);
      }
      expect(ticks, 'timers ran during a cost-10 hash').to.be.greaterThan(5);
      h.bounds = { maxSteps: 1000, maxRecords: 1000, maxMs: 50 };
      await h.db.updateSettings({ function_bcrypt_max_cost: 31 });
      const started = performance.now();
      const err = await rejection(h.run([{ type: 'BcryptHash', plain: 'x', output_field: 'h', cost: 31 }]));
      expect(err.message).to.match(/time/i);
      expect(performance.now() - started).to.be.lessThan(2000);
    });

    it('runs on a worker pool when given one, and stops the worker at the call time bound', async () => {
      const pool = new BcryptWorkerPool(1);
      h.bcrypt = pool;
      try {
        const hash = await one({ type: 'BcryptHash', plain: 'hunter2', output_field: 'out', cost: 5 });
        expect(await verify('hunter2', hash)).to.equal(true);
        expect(pool.workers).to.equal(1);
        h.bounds = { maxSteps: 1000, maxRecords: 1000, maxMs: 300 };
        await h.db.updateSettings({ function_bcrypt_max_cost: 31 });
        const err = await rejection(h.run([{ type: 'BcryptHash', plain: 'x', output_field: 'h', cost: 31 }]));
        expect(err.message).to.match(/time limit of 300 ms/);
        expect((err as { code?: string }).code).to.equal('TIMEOUT');
        expect(pool.workers, 'the worker running the hash is stopped').to.equal(0);
      } finally {
        await pool.close();
      }
    });

    it('hashes every working record with its own field', async () => {
      const s = h.db.session(undefined);
      await s.insert('users', { name: 'a', pw: 'one' });
      await s.insert('users', { name: 'b', pw: 'two' });
      const r = await h.run([
        { type: 'FindAll', collection: 'users' },
        { type: 'BcryptHash', plain: '{{pw}}', output_field: 'hash', cost: 4 },
        { type: 'BcryptVerify', plain: '{{pw}}', hash_field: 'hash', output_field: 'ok' },
      ]);
      expect(r.records.map((x) => x.ok)).to.deep.equal([true, true]);
      expect(r.records[0]!.hash).to.not.equal(r.records[1]!.hash);
    });
  });

  describe('HmacSign and HmacVerify', () => {
    /** RFC 4231 test cases 1, 2 and 4 (keys and data that are text or binary fields). */
    const RFC4231 = [
      {
        key: '\x0b'.repeat(20), data: 'Hi There',
        sha256: 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
        sha384: 'afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6',
        sha512: '87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854',
      },
      {
        key: 'Jefe', data: 'what do ya want for nothing?',
        sha256: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
        sha384: 'af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649',
        sha512: '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
      },
    ];

    it('gives the RFC 4231 vectors for sha256, sha384 and sha512, in hex and base64', async () => {
      for (const v of RFC4231) {
        for (const algorithm of ['sha256', 'sha384', 'sha512'] as const) {
          const step = { type: 'HmacSign', input: '{{d}}', secret: '{{k}}', output_field: 'out', algorithm };
          expect(await one(step, { d: v.data, k: v.key })).to.equal(v[algorithm]);
          expect(await one({ ...step, encoding: 'base64' }, { d: v.data, k: v.key })).to.equal(Buffer.from(v[algorithm], 'hex').toString('base64'));
        }
      }
      expect(await one({ type: 'HmacSign', input: 'what do ya want for nothing?', secret: 'Jefe', output_field: 'out' })).to.equal(RFC4231[1]!.sha256);
    });

    it('gives the RFC 4231 test case 4 vector over a binary field', async () => {
      await h.db.session(undefined).insert('blobs', { data: { type: 'Binary', value: Buffer.alloc(50, 0xcd).toString('base64') } });
      const key = Buffer.from(Array.from({ length: 25 }, (_, i) => i + 1)).toString('latin1');
      const r = await h.run([
        { type: 'FindAll', collection: 'blobs' },
        { type: 'HmacSign', input: '{{data}}', secret: '{{k}}', output_field: 'mac' },
      ], { k: key });
      expect(r.records[0]!.mac).to.equal('82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b');
    });

    it('verifies in constant time: right MAC true; wrong, truncated, other encoding or malformed false', async () => {
      const v = RFC4231[1]!;
      const step = (mac: string, extra: Record<string, unknown> = {}) =>
        one({ type: 'HmacVerify', input: v.data, secret: v.key, provided_mac: '{{m}}', output_field: 'out', ...extra }, { m: mac });
      expect(await step(v.sha256)).to.equal(true);
      expect(await step(v.sha256.toUpperCase())).to.equal(true);
      expect(await step(Buffer.from(v.sha256, 'hex').toString('base64'), { encoding: 'base64' })).to.equal(true);
      expect(await step(v.sha512, { algorithm: 'sha512' })).to.equal(true);
      const flipped = (v.sha256[0] === '0' ? '1' : '0') + v.sha256.slice(1);
      for (const bad of [flipped, v.sha256.slice(0, 62), `${v.sha256}00`, 'zz', '', v.sha384]) expect(await step(bad), bad).to.equal(false);
      expect(await step(v.sha256, { encoding: 'base64' })).to.equal(false);
      expect(await step(v.sha256, { algorithm: 'sha512' })).to.equal(false);
    });

    it('refuses unknown algorithms and encodings at save, and an empty secret at run time', async () => {
      expect(() => h.define({ label: 'a', functions: [{ type: 'HmacSign', input: 'x', secret: 'k', output_field: 'o', algorithm: 'md5' }] }))
        .to.throw('functions[0].algorithm: must be one of sha256, sha384, sha512 (a literal)');
      expect(() => h.define({ label: 'b', functions: [{ type: 'HmacSign', input: 'x', secret: 'k', output_field: 'o', encoding: 'base32' }] }))
        .to.throw('functions[0].encoding: must be one of hex, base64 (a literal)');
      const err = await rejection(h.run([{ type: 'HmacSign', input: 'x', secret: '{{k}}', output_field: 'o' }], { k: '' }));
      expect(err.message).to.equal("'secret' must not be empty");
    });
  });

  describe('AesEncrypt and AesDecrypt', () => {
    /** The GCM specification's test cases 13-15 (McGrew and Viega; NIST's GCM reference): AES-256, 96-bit IV, no AAD. */
    const zeroKey = '00'.repeat(32);
    const sealed = (ctHex: string, tagHex: string, ivHex: string) =>
      ({ ciphertext: Buffer.from(ctHex + tagHex, 'hex').toString('base64'), nonce: Buffer.from(ivHex, 'hex').toString('base64') });
    const decrypt = (box: unknown, key: string, extra: Record<string, unknown> = {}) =>
      one({ type: 'AesDecrypt', ciphertext_field: 'box', key: '{{k}}', output_field: 'out', ...extra }, { box, k: key });

    it('decrypts the GCM test vectors (256-bit key, 96-bit IV)', async () => {
      expect(await decrypt(sealed('', '530f8afbc74536b9a963b4f1c4cb738b', '00'.repeat(12)), zeroKey)).to.equal('');
      expect(await decrypt(sealed('cea7403d4d606b6e074ec5d3baf39d18', 'd0d1c8a799996bf0265b98b5d48ab919', '00'.repeat(12)), zeroKey))
        .to.equal('\0'.repeat(16));
      // Test case 15's plaintext is binary: node's GCM must give its ciphertext and tag, and the step reads that text as not UTF-8 (null).
      const key15 = 'feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308';
      const p15 = 'd9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255';
      const c15 = '522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad';
      const cipher = createCipheriv('aes-256-gcm', Buffer.from(key15, 'hex'), Buffer.from('cafebabefacedbaddecaf888', 'hex'));
      expect(Buffer.concat([cipher.update(Buffer.from(p15, 'hex')), cipher.final()]).toString('hex')).to.equal(c15);
      expect(cipher.getAuthTag().toString('hex')).to.equal('b094dac5d93471bdec1a502270e3cc6c');
      expect(await decrypt(sealed(c15, 'b094dac5d93471bdec1a502270e3cc6c', 'cafebabefacedbaddecaf888'), key15)).to.equal(null);
    });

    it('round-trips text with a random 12-byte nonce, under every key encoding', async () => {
      const raw = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7));
      for (const [encoding, key] of [['hex', raw.toString('hex')], ['base64', raw.toString('base64')], ['base64url', raw.toString('base64url')]] as const) {
        const r = await h.run([
          { type: 'AesEncrypt', plaintext: '{{msg}}', key: '{{k}}', key_encoding: encoding, output_field: 'box' },
          { type: 'AesDecrypt', ciphertext_field: 'box', key: '{{k}}', key_encoding: encoding, output_field: 'plain' },
        ], { msg: 'secret note ✓', k: key });
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
      const box = await one({ type: 'AesEncrypt', plaintext: 'pay 10 to bob', key: zeroKey, output_field: 'out' }) as { ciphertext: string; nonce: string };
      expect(await decrypt(box, zeroKey)).to.equal('pay 10 to bob');
      expect(await decrypt(box, `01${'00'.repeat(31)}`)).to.equal(null);
      const ct = Buffer.from(box.ciphertext, 'base64');
      const flip = (buf: Buffer, i: number) => { const c = Buffer.from(buf); c[i] = c[i]! ^ 1; return c.toString('base64'); };
      expect(await decrypt({ ...box, ciphertext: flip(ct, 0) }, zeroKey)).to.equal(null);
      expect(await decrypt({ ...box, ciphertext: flip(ct, ct.length - 1) }, zeroKey)).to.equal(null);
      expect(await decrypt({ ...box, ciphertext: ct.subarray(0, ct.length - 1).toString('base64') }, zeroKey)).to.equal(null);
      expect(await decrypt({ ...box, nonce: flip(Buffer.from(box.nonce, 'base64'), 3) }, zeroKey)).to.equal(null);
      for (const bad of [{ ciphertext: box.ciphertext }, { ...box, nonce: 'AAAA' }, { ...box, ciphertext: 'AA' }, { ...box, ciphertext: '!!' }, 'text', 5, null]) {
        expect(await decrypt(bad, zeroKey), JSON.stringify(bad)).to.equal(null);
      }
    });

    it('fails the step for a key that is not 256 bits (never echoing it) or a missing field', async () => {
      for (const [key, encoding] of [['00'.repeat(16), 'hex'], ['zz'.repeat(32), 'hex'], [Buffer.alloc(31).toString('base64'), 'base64']] as const) {
        const err = await rejection(h.run([{ type: 'AesEncrypt', plaintext: 'x', key: '{{k}}', key_encoding: encoding, output_field: 'o' }], { k: key }));
        expect(err.message).to.equal(`'key' must be a 256-bit AES key: 32 bytes in ${encoding}`);
      }
      const err = await rejection(h.run([{ type: 'AesDecrypt', ciphertext_field: 'nope', key: zeroKey, output_field: 'o' }]));
      expect(err.message).to.equal("'ciphertext_field': no field 'nope'");
    });
  });

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
          const check = { type: 'TotpVerify', code: '{{c}}', secret: SEEDS[algorithm], output_field: 'out', digits: 8, algorithm };
          expect(await one(check, { c: codes[i] }), `${algorithm} at ${time}`).to.equal(true);
        }
      }
    });

    it('defaults to 6 digits, 30 s and sha1; reads lowercase and spaced secrets', async () => {
      clock.set(59_000);
      expect(await one({ type: 'TotpGenerate', secret: SEEDS.sha1, output_field: 'out' })).to.equal('287082');
      const spaced = SEEDS.sha1.toLowerCase().replace(/(.{4})/g, '$1 ');
      expect(await one({ type: 'TotpGenerate', secret: spaced, output_field: 'out' })).to.equal('287082');
      expect(await one({ type: 'TotpGenerate', secret: SEEDS.sha1, output_field: 'out', period: 60 })).to.not.equal(undefined);
    });

    it('accepts codes within the skew (default 1 step) and refuses the rest', async () => {
      clock.set(1111111111_000);
      const verify = (code: unknown, extra: Record<string, unknown> = {}) =>
        one({ type: 'TotpVerify', code: '{{c}}', secret: SEEDS.sha1, output_field: 'out', digits: 8, ...extra }, { c: code });
      expect(await verify('07081804')).to.equal(true); // previous step (1111111109 is in it)
      clock.set(1111111111_000 + 60_000);
      expect(await verify('14050471')).to.equal(false); // two steps back
      expect(await verify('14050471', { skew: 2 })).to.equal(true);
      clock.set(1111111111_000);
      expect(await verify('14050471', { skew: 0 })).to.equal(true);
      expect(await verify(14050471)).to.equal(true);
      clock.set(1111111109_000);
      expect(await verify(7081804)).to.equal(true); // leading zero restored
      for (const bad of ['1405047', '140504710', 'abcdefgh', '', null, '14050472']) expect(await verify(bad), String(bad)).to.equal(false);
    });

    it('refuses bad members at save and a secret that is not base32 at run time', async () => {
      const define = (extra: Record<string, unknown>) => () =>
        h.define({ label: `t${JSON.stringify(extra)}`, functions: [{ type: 'TotpGenerate', secret: 'GEZDGNBV', output_field: 'o', ...extra }] });
      expect(define({ digits: 7 })).to.throw('functions[0].digits: must be 6 or 8');
      expect(define({ algorithm: 'md5' })).to.throw('functions[0].algorithm: must be one of sha1, sha256, sha512 (a literal)');
      expect(define({ period: 0 })).to.throw('functions[0].period: must be an integer between 1 and 86400');
      expect(() => h.define({ label: 's', functions: [{ type: 'TotpVerify', code: '1', secret: 'A', output_field: 'o', skew: 11 }] }))
        .to.throw('functions[0].skew: must be an integer between 0 and 10');
      const err = await rejection(h.run([{ type: 'TotpGenerate', secret: 'not base32!', output_field: 'o' }]));
      expect(err.message).to.match(/'secret' is not base32/);
      expect(err.message).to.not.include('not base32!');
    });
  });

  describe('RandomToken and UuidGenerate', () => {
    it('makes tokens of the asked size and encoding, fresh per record', async () => {
      expect(await one({ type: 'RandomToken', bytes: 16, output_field: 'out' })).to.match(/^[0-9a-f]{32}$/);
      expect(await one({ type: 'RandomToken', bytes: 1024, output_field: 'out', encoding: 'base64' })).to.have.length(1368);
      expect(await one({ type: 'RandomToken', bytes: '{{n}}', output_field: 'out', encoding: 'base64url' }, { n: 32 })).to.match(/^[A-Za-z0-9_-]{43}$/);
      const s = h.db.session(undefined);
      await s.insert('c', { a: 1 });
      await s.insert('c', { a: 2 });
      const r = await h.run([{ type: 'FindAll', collection: 'c' }, { type: 'RandomToken', bytes: 8, output_field: 't' }, { type: 'UuidGenerate', output_field: 'u' }]);
      expect(r.records[0]!.t).to.not.equal(r.records[1]!.t);
      expect(r.records[0]!.u).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(r.records[0]!.u).to.not.equal(r.records[1]!.u);
    });

    it('bounds bytes to 1-1024, at save for a literal and at run time for a placeholder', async () => {
      for (const bytes of [0, 1025, 1.5, 'x']) {
        expect(() => h.define({ label: `r${bytes}`, functions: [{ type: 'RandomToken', bytes, output_field: 'o' }] }))
          .to.throw('functions[0].bytes: must be an integer between 1 and 1024');
      }
      const err = await rejection(h.run([{ type: 'RandomToken', bytes: '{{n}}', output_field: 'o' }], { n: 4096 }));
      expect(err.message).to.equal("'bytes' must be an integer between 1 and 1024");
    });
  });

  describe('{{env.NAME}} secrets', () => {
    const SECRET = 'env-secret-value-0123456789';
    beforeEach(() => {
      h.env = functionEnv({
        startup: ['HMAC_KEY'], current: () => h.db.settings().function_env_allowlist, variables: { HMAC_KEY: SECRET, DATA_KEY: '11'.repeat(32), EMPTY: '' },
      });
    });

    it('reads an allow-listed variable (startup list or setting)', async () => {
      const expected = (await one({ type: 'HmacSign', input: 'x', secret: SECRET, output_field: 'out' })) as string;
      expect(await one({ type: 'HmacSign', input: 'x', secret: '{{env.HMAC_KEY}}', output_field: 'out' })).to.equal(expected);
      await h.db.updateSettings({ function_env_allowlist: ['DATA_KEY'] });
      const r = await h.run([
        { type: 'AesEncrypt', plaintext: 'p', key: '{{env.DATA_KEY}}', output_field: 'box' },
        { type: 'AesDecrypt', ciphertext_field: 'box', key: '{{env.DATA_KEY}}', output_field: 'plain' },
      ]);
      expect(r.records[0]!.plain).to.equal('p');
    });

    it('refuses a name off the allow-list at save, naming it and never a value', () => {
      expect(() => h.define({ label: 'x', functions: [{ type: 'HmacSign', input: 'x', secret: '{{env.DATA_KEY}}', output_field: 'o' }] }))
        .to.throw("functions[0].secret: environment variable 'DATA_KEY' is not on the allow-list (function_env_allowlist or EDDYDB_FUNCTION_ENV)");
      expect(() => h.define({ label: 'y', functions: [{ type: 'Slugify', input: 'a {{env.PATH}} b', output_field: 'o' }] }))
        .to.throw("environment variable 'PATH' is not on the allow-list");
    });

    it('fails closed at run time when the name left the allow-list or is unset', async () => {
      await h.db.updateSettings({ function_env_allowlist: ['DATA_KEY', 'EMPTY'] });
      h.define({ label: 'uses_data_key', functions: [{ type: 'HexEncode', input: '{{env.DATA_KEY}}', output_field: 'o' }] });
      h.define({ label: 'uses_empty', functions: [{ type: 'HexEncode', input: '{{env.EMPTY}}', output_field: 'o' }] });
      await h.db.updateSettings({ function_env_allowlist: ['EMPTY'] });
      const gone = await rejection(h.call('uses_data_key'));
      expect(gone.message).to.equal("Environment variable 'DATA_KEY' is not on the allow-list (function_env_allowlist or EDDYDB_FUNCTION_ENV)");
      const unset = await rejection(h.call('uses_empty'));
      expect(unset.message).to.equal("Environment variable 'EMPTY' is not set");
    });

    it('reads nothing when no environment is configured', async () => {
      h.env = undefined;
      const err = await rejection(h.run([{ type: 'HexEncode', input: '{{env.HMAC_KEY}}', output_field: 'o' }]));
      expect(err.message).to.match(/'HMAC_KEY' is not on the allow-list/);
    });
  });
});
