import { expect } from 'chai';
import { normalizeDateTime } from '../../../lib/engine/values/index.js';

describe('engine/values/datetime', () => {
  it('normalises RFC 3339 date-times to UTC with +00:00, keeping the fraction as it came', () => {
    expect(normalizeDateTime('2024-01-31T10:00:00Z')).to.equal('2024-01-31T10:00:00+00:00');
    expect(normalizeDateTime('2024-01-31t10:00:00z')).to.equal('2024-01-31T10:00:00+00:00');
    expect(normalizeDateTime('2024-01-31 10:00:00Z')).to.equal('2024-01-31T10:00:00+00:00');
    expect(normalizeDateTime('2024-03-01T01:30:00+02:00')).to.equal('2024-02-29T23:30:00+00:00');
    expect(normalizeDateTime('2024-01-31T10:00:00.123456789-01:00')).to.equal('2024-01-31T11:00:00.123456789+00:00');
    expect(normalizeDateTime('0001-01-01T00:00:00Z')).to.equal('0001-01-01T00:00:00+00:00');
  });

  it('refuses impossible dates and times, and instants outside the years 0000-9999 once in UTC', () => {
    for (const text of [
      '2023-02-29T00:00:00Z',
      '2024-02-30T00:00:00Z',
      '2024-13-01T00:00:00Z',
      '2024-01-31T24:00:00Z',
      '2024-01-31T10:60:00Z',
      '9999-12-31T23:00:00-02:00',
    ]) {
      expect(normalizeDateTime(text), text).to.equal(undefined);
    }
  });

  it('refuses text that only looks like one: a dash out of place, too short or too long, no zone', () => {
    for (const text of [
      '',
      'user1000000@example.com',
      '20240-1-31T10:00:00Z',
      '2024/01/31T10:00:00Z',
      '2024-01-31T10:00Z',
      '2024-01-31T10:00:00',
      '2024-01-31T10:00:00.1234567890Z',
      ` 2024-01-31T10:00:00Z`,
      `2024-01-31T10:00:00Z${' '.repeat(30)}`,
    ]) {
      expect(normalizeDateTime(text), text).to.equal(undefined);
    }
  });
});
