import { expect } from 'chai';
import { isRfc4122Uuid, isUuidShape } from '../../../lib/engine/values/index.js';

/** From the official KV-wrapped functions example: the real server stores it although `g` is not hex. */
const EXAMPLE = 'b1ffcd00-0d1c-5fg9-8a1a-000000000000';

describe('engine/values/uuid', () => {
  it('takes any 8-4-4-4-12 groups of ASCII letters and digits as the shape of a UUID', () => {
    for (const s of [
      EXAMPLE,
      '123e4567-e89b-12d3-a456-426614174000',
      '123E4567-E89B-12D3-A456-426614174000',
      'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz',
      '00000000-0000-0000-0000-000000000000',
    ]) {
      expect(isUuidShape(s), s).to.equal(true);
    }
  });

  it('refuses other lengths, other separators, missing hyphens and non-ASCII characters', () => {
    for (const s of [
      '',
      'not-a-uuid',
      '123e4567e89b12d3a456426614174000',
      '123e4567-e89b-12d3-a456-42661417400',
      '123e4567-e89b-12d3-a456-4266141740000',
      '123e4567_e89b_12d3_a456_426614174000',
      '{123e4567-e89b-12d3-a456-426614174000}',
      '123e4567-e89b-12d3-a456-42661417400é',
      ' 123e4567-e89b-12d3-a456-426614174000',
      '123e4567-e89b-12d3-a456-426614174000\n',
    ]) {
      expect(isUuidShape(s), JSON.stringify(s)).to.equal(false);
    }
  });

  it('takes hex UUIDs of versions 1 to 8 with the RFC 4122 variant, in either case, as strict RFC 4122', () => {
    for (const version of '12345678') {
      for (const variant of '89abAB') {
        const s = `123e4567-e89b-${version}2d3-${variant}456-426614174000`;
        expect(isRfc4122Uuid(s), s).to.equal(true);
      }
    }
    expect(isRfc4122Uuid('123E4567-E89B-42D3-A456-426614174000')).to.equal(true);
  });

  it('takes the nil and max UUIDs as strict RFC 4122', () => {
    expect(isRfc4122Uuid('00000000-0000-0000-0000-000000000000')).to.equal(true);
    expect(isRfc4122Uuid('ffffffff-ffff-ffff-ffff-ffffffffffff')).to.equal(true);
    expect(isRfc4122Uuid('FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF')).to.equal(true);
  });

  it('refuses non-hex digits, version 0 or 9-f, and the other variants as strict RFC 4122', () => {
    for (const s of [
      EXAMPLE,
      '123e4567-e89b-02d3-a456-426614174000',
      '123e4567-e89b-92d3-a456-426614174000',
      '123e4567-e89b-f2d3-a456-426614174000',
      '123e4567-e89b-42d3-7456-426614174000',
      '123e4567-e89b-42d3-c456-426614174000',
      '123e4567e89b42d3a456426614174000',
      'not-a-uuid',
    ]) {
      expect(isRfc4122Uuid(s), s).to.equal(false);
    }
  });
});
