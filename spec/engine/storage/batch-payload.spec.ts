/**
 * The log payload of a large batch is packed in slices (batch-payload.ts)
 * and must decode to exactly what one encodePayload call gives, for batch
 * sizes at and around the slice size and the MessagePack array-header sizes.
 */
import { expect } from 'chai';
import type { Effect, LoggedBatch } from '../../../lib/engine/effects.js';
import { encodeBatchPayload } from '../../../lib/engine/storage/batch-payload.js';
import { decodePayload, encodePayload } from '../../../lib/engine/storage/codec.js';
import { Tagged } from '../../../lib/engine/values/index.js';

const effect = (i: number): Effect => i % 7 === 0
  ? { t: 'delete', c: 'c', id: `r${i}`, trashedAt: i }
  : { t: 'put', c: 'c', id: `r${i}`, fields: { id: `r${i}`, n: i, big: 2n ** 60n + BigInt(i), when: new Tagged('DateTime', '2024-01-01T00:00:00Z'), s: 'é'.repeat(i % 40) } as never };

describe('engine/storage batch payload', () => {
  for (const n of [0, 1, 15, 16, 500, 501, 1234, 65_536]) {
    it(`decodes a batch of ${n} effects as the one-call encoding does`, async () => {
      const batch: LoggedBatch = { seq: 12_345, effects: Array.from({ length: n }, (_, i) => effect(i)) };
      const sliced = await encodeBatchPayload(batch);
      expect(decodePayload(sliced)).to.deep.equal(decodePayload(encodePayload({ seq: batch.seq, effects: batch.effects })));
    });
  }
});
