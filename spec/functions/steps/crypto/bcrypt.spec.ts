/**
 * BcryptHash and BcryptVerify through the interpreter, then the server's
 * bcrypt (lib/functions/steps/crypto/bcrypt.ts, run on worker threads by
 * the server or sliced on the event loop, and stoppable at the
 * call's time bound, where bcryptjs's async API holds the loop for up to
 * 100 ms at a time) checked against bcryptjs, the well-kept reference, in
 * both directions: bcryptjs verifies our hashes and we verify bcryptjs's,
 * over seeded random passwords (ASCII, multi-byte UTF-8, empty, and up to
 * the 72 bytes bcrypt reads; longer ones are refused here).
 */
import { expect } from 'chai';
import bcrypt from 'bcryptjs';
import { ManualClock } from '../../../../lib/engine/index.js';
import { BcryptWorkerPool, SLICED_BCRYPT } from '../../../../lib/functions/index.js';
import {
  bcryptHash,
  bcryptVerify,
  parseBcryptHash,
  type ParsedBcryptHash,
} from '../../../../lib/functions/steps/crypto/bcrypt.js';
import { FunctionHarness, rejection } from '../../../helpers/function-harness.js';
import { mulberry32 } from '../../../helpers/seeded-random.js';

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
      expect(await bcryptVerify(pw, theirs, SLICED_BCRYPT), "we verify bcryptjs's hash").to.equal(true);
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
      const err = await attempt.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err)
        .to.be.instanceOf(Error)
        .with.property('message')
        .that.matches(/73 bytes.*at most 72/);
    }
  });
});

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
      const r = await h.run([{ type: 'BcryptHash', plain: '{{p}}', output_field: 'password_hash', cost: 4 }], {
        p: 'hunter2',
      });
      const hash = r.records[0]!.password_hash as string;
      expect(hash).to.match(/^\$2b\$04\$[./A-Za-z0-9]{53}$/);
      expect(await verify('hunter2', hash)).to.equal(true);
      expect(await verify('hunter3', hash)).to.equal(false);
      expect(await one({ type: 'BcryptHash', plain: 'hunter2', output_field: 'out', cost: 4 })).to.not.equal(hash);
      const fn = h.define({
        label: 'default_cost',
        functions: [{ type: 'BcryptHash', plain: 'x', output_field: 'h' }],
      });
      expect((fn.steps[0]!.config as { cost: number }).cost).to.equal(12);
    });

    it('refuses passwords over 72 bytes of UTF-8 with a 400 in both steps, where other bcrypts cut them', async () => {
      const longest = `${'é'.repeat(35)}ab`;
      const hash = await one({ type: 'BcryptHash', plain: '{{p}}', output_field: 'out', cost: 4 }, { p: longest });
      expect(await verify(longest, hash)).to.equal(true);
      expect(await verify(`${longest.slice(0, -1)}c`, hash), 'the 72nd byte counts').to.equal(false);
      const hashing = await rejection(
        one({ type: 'BcryptHash', plain: '{{p}}', output_field: 'out', cost: 4 }, { p: `${longest}c` }),
      );
      expect(hashing.message).to.match(/73 bytes of UTF-8; bcrypt reads at most 72/);
      expect((hashing as { code?: string }).code).to.equal('INVALID_INPUT');
      const verifying = await rejection(verify(`${longest}c`, hash));
      expect(verifying.message).to.match(/73 bytes of UTF-8; bcrypt reads at most 72/);
    });

    it('refuses a cost above function_bcrypt_max_cost (default 14) before any work, naming the cost and the limit', async () => {
      const hashing = await rejection(h.run([{ type: 'BcryptHash', plain: 'x', output_field: 'h', cost: 15 }]));
      expect(hashing.message).to.equal(
        "BcryptHash cost 15 is above this server's limit of 14 (setting function_bcrypt_max_cost): each step of " +
          'cost doubles the work',
      );
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
      for (const bad of [
        '',
        'plain',
        42,
        '$2a$06$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s',
        '$2x$06$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s.',
        '$2a$03$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s.',
      ]) {
        expect(await verify('', bad), String(bad)).to.equal(false);
      }
    });

    it('checks the cost at save (4 to 31)', () => {
      for (const cost of [3, 32, 10.5, '12']) {
        expect(() =>
          h.define({ label: `c${cost}`, functions: [{ type: 'BcryptHash', plain: 'x', output_field: 'h', cost }] }),
        ).to.throw('functions[0].cost: must be an integer between 4 and 31');
      }
    });

    it('yields to the event loop while hashing without a worker pool, and stops at the call time bound', async () => {
      let ticks = 0;
      const timer = setInterval(() => {
        ticks++;
      }, 1);
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
});
