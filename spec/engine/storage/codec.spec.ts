/**
 * The log and snapshot codec keeps 64-bit Integers exact: a bigint is
 * written as a MessagePack int64 and read back as the same bigint, and
 * numbers keep their float or small-int encodings, so they read back as
 * numbers. Then the same through a real log replay and a snapshot load.
 */
import { expect } from 'chai';
import { Database } from '../../../lib/engine/index.js';
import {
  decodeBatch,
  decodePayload,
  effectFromStored,
  encodeBatch,
  encodePayload,
  storedEffect,
} from '../../../lib/engine/storage/codec.js';
import { MADE_ID, type Effect } from '../../../lib/engine/write/effects.js';
import { Tagged } from '../../../lib/engine/values/index.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

const P53 = 2n ** 53n + 1n;
const MAX = 2n ** 63n - 1n;
const MIN = -(2n ** 63n);

describe('engine/storage/codec with 64-bit integers', () => {
  it('decodes a bigint as the same bigint and a number as a number', () => {
    const value = {
      big: [P53, MAX, MIN],
      nested: { x: P53 },
      set: new Tagged('Set', [MAX, 1]),
      safe: Number.MAX_SAFE_INTEGER,
      millis: 1_750_000_000_000,
      float: 2 ** 60,
      neg: -(2 ** 40),
    };
    const back = decodePayload<typeof value>(encodePayload(value));
    expect(back).to.deep.equal(value);
    expect(typeof back.safe).to.equal('number');
    expect(typeof back.float).to.equal('number');
    expect(typeof back.big[0]).to.equal('bigint');
  });

  it('decodes strings of every length, in records, arrays and typed values, to their own equal copies', () => {
    // Long ASCII runs are what msgpackr's native reader slices; decodePayload copies them (memory, not meaning).
    const texts = [
      '',
      'a',
      'x'.repeat(12),
      'y'.repeat(13),
      'z'.repeat(200),
      'Zoë Ångström, 東京 🚀 and more',
      'user.name+tag@example.com',
    ];
    const value = {
      seq: 7,
      effects: texts.map((t, i) => ({
        t: 'put',
        c: 'people',
        id: `record-id-number-${i}`,
        fields: { id: `record-id-number-${i}`, t, list: [t, { t }] },
      })),
      when: new Tagged('DateTime', '2025-06-01T12:34:56.789+00:00'),
      set: new Tagged('Set', ['a-long-set-member-1', 'b']),
    };
    const back = decodePayload<typeof value>(encodePayload(value));
    expect(back).to.deep.equal(value);
    expect(back.when).to.be.instanceOf(Tagged);
    expect(Object.isFrozen(back.when)).to.equal(true);
  });

  describe('through a database directory', () => {
    let dir: string;
    beforeEach(() => {
      dir = tempDir();
    });
    afterEach(() => removeDir(dir));

    async function fill(): Promise<string> {
      const db = await Database.open({ dataDir: dir });
      const id = await db.records.insert('big', {
        a: P53,
        w: { type: 'Integer', value: MAX },
        o: { y: [MIN] },
        s: { type: 'Set', value: [MAX] },
      });
      await db.records.applyActions('big', id, [{ action: 'increment', field: 'a', value: 1 }]);
      await db.kv.set('k', MIN);
      await db.close();
      return id;
    }

    async function expectExact(id: string): Promise<void> {
      const db = await Database.open({ dataDir: dir });
      try {
        const r = db.records.findById('big', id);
        expect(r.a).to.equal(P53 + 1n);
        expect(r.w).to.equal(MAX);
        expect(r.o).to.deep.equal({ y: [MIN] });
        expect(r.s).to.deep.equal(new Tagged('Set', [MAX]));
        expect(db.kv.get('k')).to.equal(MIN);
      } finally {
        await db.close();
      }
    }

    it('reads big integers back exactly from a log replay', async () => {
      await expectExact(await fill());
    });

    it('reads big integers back exactly from a snapshot', async () => {
      const id = await fill();
      const db = await Database.open({ dataDir: dir });
      await db.snapshot();
      await db.close();
      await expectExact(id);
    });
  });
});

describe('engine/storage/codec effects', () => {
  const meta = { name: 'people', createdAt: '2026-01-01T00:00:00.000Z' };
  const key = { id: 'k1', name: 'ops', hash: 'h', admin: false, created_at: '2026-01-01T00:00:00.000Z' };
  /** Each kind of effect, in memory and as FORMAT.md spells it in the log. */
  const CASES: Array<[Effect, Record<string, unknown>]> = [
    [
      { kind: 'createCollection', meta, noRipple: true },
      { t: 'createCollection', meta, nr: true },
    ],
    [
      { kind: 'setCollectionMeta', meta },
      { t: 'setCollectionMeta', meta },
    ],
    [
      { kind: 'dropCollection', name: 'people' },
      { t: 'dropCollection', name: 'people' },
    ],
    [
      { kind: 'put', collection: 'people', id: 'a', fields: { id: 'a', n: 1 } },
      { t: 'put', c: 'people', id: 'a', fields: { id: 'a', n: 1 } },
    ],
    [
      { kind: 'put', collection: 'people', id: 'b', fields: {}, expiresAt: 5, slidingMs: 60_000, noRipple: true },
      { t: 'put', c: 'people', id: 'b', fields: {}, expiresAt: 5, slidingMs: 60_000, nr: true },
    ],
    [
      { kind: 'delete', collection: 'people', id: 'a', trashedAt: 9 },
      { t: 'delete', c: 'people', id: 'a', trashedAt: 9 },
    ],
    [
      { kind: 'restore', collection: 'people', id: 'a' },
      { t: 'restore', c: 'people', id: 'a' },
    ],
    [
      { kind: 'purge', collection: 'people', id: 'a' },
      { t: 'purge', c: 'people', id: 'a' },
    ],
    [
      { kind: 'kvSet', key: 'k', value: 1, expiresAt: 3 },
      { t: 'kvSet', key: 'k', value: 1, expiresAt: 3 },
    ],
    [
      { kind: 'kvDelete', key: 'k', noRipple: true },
      { t: 'kvDelete', key: 'k', nr: true },
    ],
    [{ kind: 'kvClear' }, { t: 'kvClear' }],
    [
      { kind: 'kvLink', key: 'k', collection: 'people', id: 'a' },
      { t: 'kvLink', key: 'k', c: 'people', id: 'a' },
    ],
    [
      { kind: 'kvUnlink', key: 'k', collection: 'people', id: 'a' },
      { t: 'kvUnlink', key: 'k', c: 'people', id: 'a' },
    ],
    [
      { kind: 'keyPut', key },
      { t: 'keyPut', key },
    ],
    [
      { kind: 'keyDelete', id: 'k1' },
      { t: 'keyDelete', id: 'k1' },
    ],
    [
      { kind: 'config', values: { max_batch_size: 10 } },
      { t: 'config', values: { max_batch_size: 10 } },
    ],
  ];

  it("stores every kind of effect with the log's field names, and reads it back as it was", () => {
    for (const [effect, stored] of CASES) {
      expect(storedEffect(effect), effect.kind).to.deep.equal(stored);
      expect(effectFromStored(stored), effect.kind).to.deep.equal(effect);
    }
  });

  it('writes a batch byte for byte as the stored form packs, so the log format is unchanged', () => {
    const effects = CASES.map(([effect]) => effect);
    const bytes = encodeBatch({ seq: 42, effects });
    expect(bytes.equals(encodePayload({ seq: 42, effects: CASES.map(([, stored]) => stored) }))).to.equal(true);
    expect(decodeBatch(bytes)).to.deep.equal({ seq: 42, effects });
  });

  it('leaves the made-id mark out of the log', () => {
    const plain: Effect = { kind: 'put', collection: 'people', id: 'a', fields: { id: 'a' } };
    const made: Effect = { ...plain, [MADE_ID]: true };
    expect(encodeBatch({ seq: 1, effects: [made] }).equals(encodeBatch({ seq: 1, effects: [plain] }))).to.equal(true);
    expect(decodeBatch(encodeBatch({ seq: 1, effects: [made] }))!.effects[0]).to.not.have.property(MADE_ID);
  });

  it('reads back as no batch a payload that is not one', () => {
    expect(decodeBatch(encodePayload({ seq: 'x', effects: [] }))).to.equal(undefined);
    expect(decodeBatch(encodePayload([1, 2]))).to.equal(undefined);
  });
});
