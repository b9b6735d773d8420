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

  describe('RandomToken and UuidGenerate', () => {
    it('makes tokens of the asked size and encoding, fresh per record', async () => {
      expect(await one({ type: 'RandomToken', bytes: 16, output_field: 'out' })).to.match(/^[0-9a-f]{32}$/);
      expect(await one({ type: 'RandomToken', bytes: 1024, output_field: 'out', encoding: 'base64' })).to.have.length(
        1368,
      );
      expect(
        await one({ type: 'RandomToken', bytes: '{{n}}', output_field: 'out', encoding: 'base64url' }, { n: 32 }),
      ).to.match(/^[A-Za-z0-9_-]{43}$/);
      const s = h.db.session(undefined);
      await s.insert('c', { a: 1 });
      await s.insert('c', { a: 2 });
      const r = await h.run([
        { type: 'FindAll', collection: 'c' },
        { type: 'RandomToken', bytes: 8, output_field: 't' },
        { type: 'UuidGenerate', output_field: 'u' },
      ]);
      expect(r.records[0]!.t).to.not.equal(r.records[1]!.t);
      expect(r.records[0]!.u).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(r.records[0]!.u).to.not.equal(r.records[1]!.u);
    });

    it('bounds bytes to 1-1024, at save for a literal and at run time for a placeholder', async () => {
      for (const bytes of [0, 1025, 1.5, 'x']) {
        expect(() =>
          h.define({ label: `r${bytes}`, functions: [{ type: 'RandomToken', bytes, output_field: 'o' }] }),
        ).to.throw('functions[0].bytes: must be an integer between 1 and 1024');
      }
      const err = await rejection(h.run([{ type: 'RandomToken', bytes: '{{n}}', output_field: 'o' }], { n: 4096 }));
      expect(err.message).to.equal("'bytes' must be an integer between 1 and 1024");
    });
  });
});
