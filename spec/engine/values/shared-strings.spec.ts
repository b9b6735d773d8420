/**
 * Short stored strings are shared between records (sharedString): a record
 * built from a fresh copy of a value other records hold keeps no copy of
 * its own. Long strings are kept as given, and the table stays bounded.
 */
import { expect } from 'chai';
import { gc, heapPerRecord, heapSavedPerRecord } from '../../helpers/heap.js';
import {
  fieldsFromWire,
  MAX_SHARED_LENGTH,
  ownStrings,
  sharedString,
  storedString,
  Tagged,
} from '../../../lib/engine/values/index.js';
import { decodePayload, encodePayload } from '../../../lib/engine/storage/codec.js';

/** A fresh string each call (not a literal V8 would share), `length` long, one of ten values. */
const fresh = (i: number, length: number) => (String(i % 10) + 'x'.repeat(length)).slice(0, length);

describe('engine/values/shared strings', () => {
  it('gives equal strings back, long ones as they are', () => {
    expect(sharedString('Goran Jensen')).to.equal('Goran Jensen');
    const long = 'y'.repeat(MAX_SHARED_LENGTH + 1);
    expect(sharedString(long)).to.equal(long);
    expect(storedString(long)).to.equal(long);
  });

  it('ownStrings keeps a decoded value as it is, swapping its strings for stored ones, through arrays and plain objects', () => {
    const tagged = new Tagged('DateTime', '2026-01-01T00:00:00Z');
    const bytes = Buffer.from('abc');
    const value = {
      a: 'short',
      b: 1.5,
      c: null,
      d: true,
      e: [fresh(3, 40), 7, [fresh(4, 5)]],
      f: { g: fresh(5, 30), h: tagged },
      i: bytes,
    };
    const copy = JSON.parse(JSON.stringify({ ...value, f: { g: value.f.g }, i: 0 }));
    const out = ownStrings(value) as typeof value;
    expect(out, 'changed in place').to.equal(value);
    expect(out.f.h, 'a class instance is left alone').to.equal(tagged);
    expect(out.i).to.equal(bytes);
    expect({ ...out, f: { g: out.f.g }, i: 0 }).to.deep.equal(copy);
    expect(out.a, 'a short string is the shared one').to.equal(sharedString('short'));
    expect(ownStrings('text')).to.equal('text');
    expect(ownStrings(42)).to.equal(42);
    expect(ownStrings(null)).to.equal(null);
  });

  it('records from a JSON body share a short repeated value; a longer one is kept per record', () => {
    const n = 50_000;
    const short = heapPerRecord(n, (i) => fieldsFromWire({ name: fresh(i, MAX_SHARED_LENGTH) }));
    const long = heapPerRecord(n, (i) => fieldsFromWire({ name: fresh(i, MAX_SHARED_LENGTH + 1) }));
    // A 17-character string costs 40 bytes of heap; a shared one nothing per record.
    expect(long - short).to.be.greaterThan(30);
  });

  it('records decoded from the log share short values too, nested ones included', () => {
    const n = 20_000;
    const frame = (length: number) =>
      encodePayload(Array.from({ length: n }, (_, i) => ({ city: fresh(i, length), tags: [fresh(i + 5, length)] })));
    const short = frame(MAX_SHARED_LENGTH),
      long = frame(MAX_SHARED_LENGTH + 1);
    decodePayload(long); // the decoder's first run allocates what it keeps for later ones
    const perShort = heapPerRecord(1, () => decodePayload(short)) / n;
    const perLong = heapPerRecord(1, () => decodePayload(long)) / n;
    // Two 17-character strings own 80 bytes per record; two shared ones nothing.
    expect(perLong - perShort).to.be.greaterThan(60);
  });

  it('copies a long string once when the same text comes twice in a row (a row key, then fields.id)', () => {
    // Enough rows that the collector's leftovers from earlier specs do not blur 48 bytes a row.
    const n = 60_000;
    const id = (i: number) => `${'k'.repeat(20)}${String(i).padStart(6, '0')}`;
    const twice = encodePayload(Array.from({ length: n }, (_, i) => [id(i), { id: id(i) }]));
    const distinct = encodePayload(Array.from({ length: n }, (_, i) => [id(i), { id: id(i + n) }]));
    const saved = heapSavedPerRecord(
      1,
      () => decodePayload(distinct),
      () => decodePayload(twice),
    );
    // A 26-character string owns 48 bytes: the repeated id costs nothing more.
    expect(
      saved.median / n,
      `bytes a row in each round: ${saved.rounds.map((r) => r / n).join(', ')}`,
    ).to.be.greaterThan(40);
    const rows = decodePayload<Array<[string, { id: string }]>>(twice);
    expect(rows[7]![0]).to.equal(id(7));
    expect(rows[7]![1].id).to.equal(id(7));
  });

  it('stays bounded: a stream of unique short values does not grow the heap with it', () => {
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 400_000; i++) sharedString(`u${i}`);
    gc();
    // 400,000 unique values would keep about 30 MB; the table holds at most 16,384 of them.
    expect(process.memoryUsage().heapUsed - before).to.be.lessThan(12e6);
  });
});
