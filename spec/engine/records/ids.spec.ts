/**
 * Record ids (ids.ts): made ahead in runs of encrypted blocks, every id is
 * 22 characters of base64url, and none repeats, across runs and across two
 * generators started in the same millisecond with the same key.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { IdGenerator } from '../../../lib/engine/records/ids.js';

describe('engine/ids', () => {
  it('makes distinct 22-character base64url ids across many runs', () => {
    const key = randomBytes(32);
    const a = new IdGenerator(key);
    const b = new IdGenerator(key);
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      for (const id of [a.next(), b.next()]) {
        expect(id).to.match(/^[A-Za-z0-9_-]{22}$/);
        seen.add(id);
      }
    }
    expect(seen.size).to.equal(10_000);
  });
});
