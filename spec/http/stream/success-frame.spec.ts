import { expect } from 'chai';
import { Unpackr } from 'msgpackr';
import { Tagged, type Fields } from '../../../lib/engine/index.js';
import { encodeSuccess, encodeWs } from '../../../lib/http/stream/frame-formats.js';
import { WireRecord } from '../../../lib/http/wire/wire-record.js';

const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: 'bigint' });

describe('encodeSuccess: a WebSocket Success reply', () => {
  const records: Fields[] = [
    { id: 'a', name: 'Ann', age: 31, ok: true, none: null, score: 1.5 },
    { id: 'b', when: new Tagged('DateTime', '2024-01-01T00:00:00Z'), tags: ['x'], big: 12345678901234567890n },
    {},
  ];
  const ids: unknown[] = [undefined, '7', 7, { nested: 'id' }];

  it('writes the same JSON text as the wire object would give, with and without a messageId, typed and bare', () => {
    for (const fields of records) {
      for (const typed of [true, false]) {
        for (const messageId of ids) {
          const record = new WireRecord(fields, typed);
          const plain: Record<string, unknown> = { type: 'Success', payload: { data: record.toWire() } };
          if (messageId !== undefined) plain.messageId = messageId;
          expect(encodeSuccess(record, messageId, 'json')).to.equal(encodeWs(plain, 'json'));
        }
      }
    }
  });

  it('packs a record as its wire object in MessagePack', () => {
    const record = new WireRecord(records[0]!, true);
    const frame = encodeSuccess(record, '1', 'msgpack') as Buffer;
    expect(unpackr.unpack(frame)).to.deep.equal({
      type: 'Success',
      payload: { data: record.toWire() },
      messageId: '1',
    });
  });

  it('encodes any other data as it is', () => {
    expect(encodeSuccess({ count: 2 }, undefined, 'json')).to.equal(
      '{"type":"Success","payload":{"data":{"count":2}}}',
    );
    expect(encodeSuccess(null, 'm', 'json')).to.equal('{"type":"Success","payload":{"data":null},"messageId":"m"}');
  });
});
