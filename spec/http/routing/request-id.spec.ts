import { expect } from 'chai';
import { newRequestId } from '../../../lib/http/routing/request-id.js';

describe('request ids', () => {
  it('are shaped like a UUID v4 and never repeat within the process', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const id = newRequestId();
      expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      seen.add(id);
    }
    expect(seen.size).to.equal(10_000);
  });

  it('count up by one in their last 12 hex digits, across every carry of the low byte', () => {
    let last = BigInt('0x' + newRequestId().slice(24));
    for (let i = 0; i < 1_000; i++) {
      const id = newRequestId();
      const next = BigInt('0x' + id.slice(24));
      expect(next, id).to.equal(last + 1n);
      last = next;
    }
  });
});
