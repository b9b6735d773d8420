/**
 * PayloadWriter writes a batch payload byte for byte as msgpackr does
 * (codec.ts encodeBatch): every string length class and UTF-8 form, every
 * integer range, floats, lists of numbers and vectors, tagged values, the
 * values it leaves to msgpackr, each optional
 * member of a put, other effects, and fields that are not a plain object.
 */
import { expect } from 'chai';
import type { Effect, LoggedBatch } from '../../../../lib/engine/write/effects.js';
import { MADE_ID } from '../../../../lib/engine/write/effects.js';
import { PayloadWriter } from '../../../../lib/engine/storage/log/payload-writer.js';
import { decodePayload, encodeBatch, encodePayload } from '../../../../lib/engine/storage/codec.js';
import type { RecordEntry } from '../../../../lib/engine/write/state.js';
import { FRAME_OVERHEAD, readFrame } from '../../../../lib/engine/storage/frame.js';
import { Tagged } from '../../../../lib/engine/values/index.js';
import { storedArray } from '../../../../lib/engine/values/stored-array.js';

function written(batch: LoggedBatch, capacity?: number): Buffer {
  const writer = new PayloadWriter(capacity);
  writer.beginBatch(batch.seq, batch.effects.length);
  for (const effect of batch.effects) writer.effect(effect);
  writer.endFrame();
  return writer.bytes();
}

function expectSameBytes(batch: LoggedBatch, capacity?: number): void {
  const frame = written(batch, capacity);
  const read = readFrame(frame, 0);
  expect(read.kind).to.equal('frame');
  if (read.kind !== 'frame') return;
  expect(read.next).to.equal(frame.length);
  const expected = encodeBatch(batch);
  expect(read.payload.toString('hex')).to.equal(expected.toString('hex'));
  expect(frame.length).to.equal(FRAME_OVERHEAD + expected.length);
}

const put = (fields: Record<string, unknown>, extra: Record<string, unknown> = {}): Effect =>
  ({ kind: 'put', collection: 'people', id: 'r1', fields: { id: 'r1', ...fields }, ...extra }) as Effect;

const STRING_LENGTHS = [0, 1, 31, 32, 63, 64, 65, 255, 256, 1000, 65_535, 65_536, 70_000];

describe('engine/storage/log/payload-writer', () => {
  it('writes strings of every length class, ASCII and not', () => {
    for (const n of STRING_LENGTHS) {
      expectSameBytes({ seq: n + 1, effects: [put({ ascii: 'a'.repeat(n) })] });
      expectSameBytes({ seq: n + 1, effects: [put({ two: 'é'.repeat(n) })] });
      expectSameBytes({ seq: n + 1, effects: [put({ three: '€'.repeat(n) })] });
      expectSameBytes({ seq: n + 1, effects: [put({ four: '😀'.repeat(Math.ceil(n / 2)) })] });
    }
    // A header longer than the UTF-16 length promised: the text moves.
    for (const n of [10, 11, 21, 31, 85, 86, 100, 21_845, 21_846])
      expectSameBytes({ seq: 1, effects: [put({ s: '€'.repeat(n) })] });
  });

  it('writes lone surrogates as msgpackr does, short and long', () => {
    for (const s of ['\ud800', 'a\udc00b', '\ud800'.repeat(40), `${'x'.repeat(70)}\ud800`])
      expectSameBytes({ seq: 1, effects: [put({ s })] });
  });

  it('writes every integer range and floats', () => {
    const numbers = [
      0,
      -0,
      1,
      31,
      32,
      127,
      128,
      255,
      256,
      65_535,
      65_536,
      2 ** 32 - 1,
      2 ** 32,
      2 ** 53 - 1,
      -1,
      -31,
      -32,
      -33,
      -128,
      -129,
      -32_768,
      -32_769,
      -(2 ** 31),
      -(2 ** 31) - 1,
      0.5,
      -1.25,
      1e300,
      Number.MIN_VALUE,
      NaN,
      Infinity,
      -Infinity,
    ];
    expectSameBytes({ seq: 1, effects: [put(Object.fromEntries(numbers.map((n, i) => [`n${i}`, n])))] });
    for (const seq of [0, 127, 128, 65_536, 2 ** 32, 2 ** 40]) expectSameBytes({ seq, effects: [] });
  });

  it('leaves other values to msgpackr: tagged, bigint, bytes, nested, booleans and null beside them', () => {
    expectSameBytes({
      seq: 9,
      effects: [
        put({
          t: true,
          f: false,
          nil: null,
          when: new Tagged('DateTime', '2024-01-01T00:00:00+00:00'),
          big: 2n ** 60n,
          neg: -(2n ** 62n),
          bytes: Buffer.from([1, 2, 3]),
          nested: Object.freeze({ a: [1, 'two', { three: 3 }], b: null }),
          list: Object.freeze(['x', 1, 2.5]),
          '0': 'an index-like key',
          ключ: 'a key in another script',
        }),
      ],
    });
  });

  it('writes lists of numbers and vectors itself, as msgpackr does, at every list length class', () => {
    const numbers = [0, -0, 1, 127, 128, 65_536, 2 ** 32, -1, -33, -129, -32_769, -(2 ** 31) - 1, 0.5, -1.25, 1e300];
    for (const n of [0, 1, 15, 16, 384, 65_535, 65_536]) {
      const list = storedArray(Array.from({ length: n }, (_, i) => numbers[i % numbers.length]! + (i % 7) / 8));
      expectSameBytes({ seq: n, effects: [put({ list })] });
      expectSameBytes({ seq: n, effects: [put({ embedding: new Tagged('Vector', list as number[]) })] });
    }
    expectSameBytes({ seq: 1, effects: [put({ odd: [NaN, Infinity, -Infinity, Number.MIN_VALUE, 2 ** 53 - 1] })] });
  });

  it('writes tagged strings and numbers itself, and leaves other lists and payloads to msgpackr', () => {
    expectSameBytes({
      seq: 7,
      effects: [
        put({
          when: new Tagged('DateTime', '2024-01-01T00:00:00+00:00'),
          long: new Tagged('Decimal', '1'.repeat(300)),
          ratio: new Tagged('Float', 0.25),
          tags: storedArray(['a', 'b']),
          set: new Tagged('Set', storedArray(['x', 'y']) as string[]),
          frozenNumbers: Object.freeze([1, 2, 3]),
          // Unfrozen lists that are not all numbers (no stored list is): written by msgpackr all the same.
          mixed: [1, 'two', 3],
          nested: [[1, 2], [3]],
          holey: [1, , 3],
          tail: new Tagged('Vector', [0.5, 'x'] as unknown as number[]),
          uuid: new Tagged('UUID', '6f1c2d3e-0000-4000-8000-000000000000'),
        }),
      ],
    });
  });

  it('writes the optional members of a put, and never the made-id mark', () => {
    expectSameBytes({ seq: 2, effects: [put({ a: 1 }, { expiresAt: 1_700_000_000_000 })] });
    expectSameBytes({ seq: 2, effects: [put({ a: 1 }, { expiresAt: 1_700_000_000_000, slidingMs: 60_000 })] });
    expectSameBytes({ seq: 2, effects: [put({ a: 1 }, { noRipple: true })] });
    expectSameBytes({
      seq: 2,
      effects: [put({ a: 1 }, { expiresAt: 5, slidingMs: 6, noRipple: true, [MADE_ID]: true })],
    });
  });

  it('writes puts into collections of every name length, and ids repeated in their fields, as msgpackr does', () => {
    const names = ['c', 'people', 'p'.repeat(31), 'q'.repeat(32), 'r'.repeat(300), 'kunden_é', '集合'];
    const effects: Effect[] = [];
    // Collections alternating, names short and long, ASCII and not.
    for (const [i, collection] of [...names, ...[...names].reverse()].entries()) {
      const id = i % 2 ? `id-${i}-${'x'.repeat(i)}` : `é-${i}`;
      effects.push({ kind: 'put', collection, id, fields: { id, n: i } } as Effect);
      // The id again in another field, a record whose own id is not its put's, one without an id, a long id.
      effects.push({ kind: 'put', collection, id, fields: { id, ref: id, copy: `${id}` } } as Effect);
      effects.push({ kind: 'put', collection, id, fields: { id: 'other', ref: id } } as Effect);
      effects.push({ kind: 'put', collection, id, fields: { n: i } } as Effect);
      const long = 'L'.repeat(70 + i);
      effects.push({ kind: 'put', collection, id: long, fields: { id: long } } as Effect);
    }
    expectSameBytes({ seq: 9, effects });
    expectSameBytes({ seq: 9, effects }, 64);
  });

  it('writes fields that are not a plain object as msgpackr does', () => {
    const bare = Object.assign(Object.create(null) as object, { id: 'r1', a: 1 });
    expectSameBytes({ seq: 3, effects: [{ kind: 'put', collection: 'c', id: 'r1', fields: bare } as Effect] });
    expectSameBytes({ seq: 3, effects: [put({})] });
  });

  it('writes every other effect in its stored form', () => {
    const effects: Effect[] = [
      { kind: 'createCollection', meta: { name: 'c', createdAt: '2024-01-01T00:00:00.000Z' } },
      { kind: 'createCollection', meta: { name: 'c', createdAt: '2024-01-01T00:00:00.000Z' }, noRipple: true },
      { kind: 'delete', collection: 'c', id: 'r1', trashedAt: 5 },
      { kind: 'kvSet', key: 'k', value: 'v', expiresAt: 9 },
      { kind: 'kvDelete', key: 'k' },
      { kind: 'config', values: { a: 1 } },
      { kind: 'dropCollection', name: 'c' },
    ];
    expectSameBytes({ seq: 4, effects });
  });

  it('grows from a small buffer, a batch of many effects and several frames in one buffer', () => {
    const effects = Array.from({ length: 3_000 }, (_, i) => put({ n: i, s: 'x'.repeat(i % 300) }));
    expectSameBytes({ seq: 5, effects }, 64);
    const writer = new PayloadWriter(64);
    const batches: LoggedBatch[] = [1, 2, 3].map((seq) => ({ seq, effects: effects.slice(0, seq * 10) }));
    for (const batch of batches) {
      writer.beginBatch(batch.seq, batch.effects.length);
      for (const effect of batch.effects) writer.effect(effect);
      writer.endFrame();
    }
    const out = writer.bytes();
    let at = 0;
    for (const batch of batches) {
      const read = readFrame(out, at);
      if (read.kind !== 'frame') throw new Error(read.kind);
      expect(read.payload.equals(encodeBatch(batch))).to.equal(true);
      expect(decodePayload<{ seq: number }>(read.payload).seq).to.equal(batch.seq);
      at = read.next;
    }
    expect(at).to.equal(out.length);
  });

  describe('snapshot rows frames', () => {
    type Entry = { id: string; entry: RecordEntry; deletedAt?: number };
    const entry = (i: number, extra: Partial<RecordEntry> = {}): Entry => ({
      id: `r${i}`,
      entry: { fields: { id: `r${i}`, n: i, s: 'é'.repeat(i % 40) }, version: i * 1000, ...extra },
    });

    /** The frame snapshot.ts built before the writer took over: `{k, c, rows}` packed by msgpackr. */
    function expected(kind: 'recs' | 'trash', collection: string, rows: readonly Entry[]): Buffer {
      return encodePayload({
        k: kind,
        c: collection,
        rows: rows.map(({ id, entry: e, deletedAt }) => {
          const row: unknown[] = [id, e.fields, e.version, e.expiresAt ?? null, e.slidingMs ?? null];
          if (deletedAt !== undefined) row.push(deletedAt);
          return row;
        }),
      });
    }

    function expectSameRows(kind: 'recs' | 'trash', collection: string, rows: readonly Entry[], capacity = 16): void {
      const writer = new PayloadWriter(0);
      expect(writer.inRows).to.equal(false);
      writer.beginRows(kind, collection, capacity);
      expect(writer.inRows).to.equal(true);
      for (const { id, entry: e, deletedAt } of rows) writer.row(id, e, deletedAt);
      expect(writer.rows).to.equal(rows.length);
      writer.endRows();
      expect(writer.inRows).to.equal(false);
      const frame = writer.bytes();
      const read = readFrame(frame, 0);
      if (read.kind !== 'frame') throw new Error(read.kind);
      expect(read.next).to.equal(frame.length);
      expect(read.payload.toString('hex')).to.equal(expected(kind, collection, rows).toString('hex'));
    }

    it('writes a rows frame byte for byte as msgpackr packs it, at every list length class', () => {
      for (const n of [0, 1, 15, 16, 17, 2000, 65_535])
        expectSameRows(
          'recs',
          'people',
          Array.from({ length: n }, (_, i) => entry(i)),
        );
    });

    it('writes TTLs, trash rows, stored arrays, tagged values and long names', () => {
      const rows: Entry[] = [
        entry(1, { expiresAt: 1_700_000_000_000 }),
        entry(2, { expiresAt: 1_700_000_000_000, slidingMs: 60_000 }),
        {
          id: 'v',
          entry: {
            fields: Object.freeze({
              id: 'v',
              embedding: [0.5, -1.25, 3],
              when: new Tagged('DateTime', '2024-01-01T00:00:00+00:00'),
              big: 2n ** 60n,
              nested: Object.freeze({ a: [1, 'two'] }),
            }),
            version: 2 ** 40,
          },
        },
      ];
      expectSameRows('recs', 'c'.repeat(300), rows);
      expectSameRows(
        'trash',
        'people',
        rows.map((r, i) => ({ ...r, deletedAt: 1_700_000_000_000 + i })),
      );
    });

    it('refuses a frame of more rows than an array16 counts', () => {
      const writer = new PayloadWriter(0);
      writer.beginRows('recs', 'c', 16);
      const { id, entry: e } = entry(1);
      for (let i = 0; i < 65_536; i++) writer.row(id, e);
      expect(() => writer.endRows()).to.throw(/at most 65,535 rows/);
    });
  });
});
