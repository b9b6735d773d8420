/**
 * Unique checks and alias lookups go through UniqueIndexes (committed
 * holders plus the records staged in the writer's view). Over seeded random
 * writes, auto-commit and inside transactions, with TTL expiry, deletes,
 * updates of the record itself and absent or null values, every answer must
 * equal the brute-force scan: findUniqueViolations over a model of the live
 * records, and findByAlias over the committed records.
 */
import { expect } from 'chai';
import { Database, ManualClock, type Session } from '../../../lib/engine/index.js';
import { findByAlias } from '../../../lib/engine/records/aliases.js';
import { findUniqueViolations, type Schema } from '../../../lib/engine/schema/index.js';
import { equalValues, fieldFromWire, type Fields } from '../../../lib/engine/values/index.js';
import { uniqueValueKey } from '../../../lib/engine/indexes/unique-index.js';
import { SchemaViolation } from '../../../lib/errors.js';
import { mulberry32 } from '../../helpers/seeded-random.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

const C = 'things';
const CODES = ['a', 'b', 'c', 'd', 'e', 'f'];
const NUMS = [1, 2, 3, 4, null];
const SKUS = ['s1', 's2', 's3'];

interface ModelRecord {
  fields: Fields;
  expiresAt?: number;
}

describe('engine/indexes unique index', () => {
  let dir: string;
  let db: Database;
  let clock: ManualClock;
  beforeEach(async () => {
    dir = tempDir();
    clock = new ManualClock();
    db = await Database.open({ dataDir: dir, clock });
  });
  afterEach(async () => {
    await db.close();
    removeDir(dir);
  });

  const schema = (): Schema => db.state.collections.get(C)!.meta.schema!;

  async function run(seed: number, inTransaction: boolean): Promise<void> {
    const rnd = mulberry32(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    await db.collections.create(C, {
      fields: { code: { field_type: 'String', unique: true }, num: { field_type: 'Integer', unique: true } },
      primary_key_alias: 'sku',
    });
    let model = new Map<string, ModelRecord>();
    const live = (m: Map<string, ModelRecord>) =>
      [...m.values()].filter((r) => r.expiresAt === undefined || r.expiresAt > clock.now()).map((r) => r.fields);
    let s: Session = db.session(undefined);
    let staged = model;
    let nextId = 0;
    for (let step = 0; step < 400; step++) {
      if (inTransaction && step % 20 === 0) {
        if (step > 0) {
          await (s as unknown as { commit(): Promise<number> }).commit();
          model = staged;
        }
        s = db.session(undefined, db.transactions.begin('ReadCommitted', undefined, undefined).id);
        staged = new Map(model);
      }
      const target = inTransaction ? staged : model;
      const roll = rnd();
      const ids = [...target.keys()];
      if (roll < 0.5 || ids.length === 0) {
        const body: Record<string, unknown> = { id: `r${nextId++}`, code: pick(CODES), sku: pick(SKUS) };
        const num = pick(NUMS);
        if (rnd() < 0.7) body.num = num;
        if (!inTransaction && rnd() < 0.2) body.ttl = '10s';
        const expected = findUniqueViolations(schema(), body as Fields, live(target)).length > 0;
        try {
          await s.insert(C, body);
          expect(expected, `step ${step}: insert ${JSON.stringify(body)} accepted`).to.equal(false);
          const { ttl: _ttl, ...fields } = body;
          target.set(body.id as string, {
            fields: fields as Fields,
            expiresAt: body.ttl ? clock.now() + 10_000 : undefined,
          });
        } catch (err) {
          if (!(err instanceof SchemaViolation)) throw err;
          expect(expected, `step ${step}: insert ${JSON.stringify(body)} refused`).to.equal(true);
        }
      } else if (roll < 0.8) {
        const id = pick(ids);
        const rec = target.get(id)!;
        if (rec.expiresAt !== undefined && rec.expiresAt <= clock.now()) continue;
        const patch: Record<string, unknown> = rnd() < 0.5 ? { code: pick(CODES) } : { num: pick(NUMS) };
        const merged = { ...rec.fields, ...patch } as Fields;
        const expected = findUniqueViolations(schema(), merged, live(target), id).length > 0;
        try {
          await s.update(C, id, patch);
          expect(expected, `step ${step}: update ${id} ${JSON.stringify(patch)} accepted`).to.equal(false);
          target.set(id, { ...rec, fields: merged });
        } catch (err) {
          if (!(err instanceof SchemaViolation)) throw err;
          expect(expected, `step ${step}: update ${id} ${JSON.stringify(patch)} refused`).to.equal(true);
        }
      } else if (roll < 0.9) {
        const id = pick(ids);
        const rec = target.get(id)!;
        if (rec.expiresAt !== undefined && rec.expiresAt <= clock.now()) continue;
        await s.delete(C, id);
        target.delete(id);
      } else if (!inTransaction) {
        // Staged ops are replayed at commit: only auto-commit runs let records expire mid-run.
        clock.advance(3_000);
      }
      if (!inTransaction) {
        // Alias lookups against the committed scan.
        const text = pick(SKUS);
        const found = findByAlias(db.state.collections.get(C)!.records, 'sku', text);
        const expectedId =
          found && (found[1].expiresAt === undefined || found[1].expiresAt > clock.now()) ? found[0] : undefined;
        let got: string | undefined;
        try {
          got = db.session(undefined).findById(C, text).id as string;
        } catch {
          got = undefined;
        }
        expect(got, `step ${step}: alias ${text}`).to.equal(expectedId);
      }
    }
  }

  for (const seed of [1, 7, 42]) {
    it(`answers like a scan over random auto-commit writes (seed ${seed})`, async () => {
      await run(seed, false);
    });
    it(`answers like a scan over random transaction writes (seed ${seed})`, async () => {
      await run(seed, true);
    });
  }

  it('gives values equal under equalValues the same key', () => {
    const pairs: Array<[unknown, unknown]> = [
      [{ type: 'DateTime', value: '2024-01-02T03:04:05Z' }, '2024-01-02T04:04:05+01:00'],
      [
        { type: 'Integer', value: 3 },
        { type: 'Float', value: 3 },
      ],
      [{ type: 'Decimal', value: '2.50' }, 2.5],
    ];
    for (const [a, b] of pairs) {
      const [x, y] = [fieldFromWire(a, 'v'), fieldFromWire(b, 'v')];
      expect(equalValues(x, y), JSON.stringify([a, b])).to.equal(true);
      expect(uniqueValueKey(x), JSON.stringify([a, b])).to.equal(uniqueValueKey(y));
    }
    expect(uniqueValueKey(fieldFromWire('a', 'v'))).to.not.equal(uniqueValueKey(fieldFromWire('b', 'v')));
  });
});
