import { expect } from 'chai';
import { rejectUnknownMembers } from '../../../lib/engine/index.js';
import { InvalidInput } from '../../../lib/errors.js';

describe('engine/members rejectUnknownMembers', () => {
  it('accepts an object holding only allowed members, from a list or a set', () => {
    rejectUnknownMembers({ a: 1, b: 2 }, ['a', 'b', 'c']);
    rejectUnknownMembers({}, new Set(['a']));
  });

  it('names the first unknown member and, by default, the allowed ones', () => {
    expect(() => rejectUnknownMembers({ a: 1, x: 2, y: 3 }, ['a', 'b'])).to.throw(
      InvalidInput,
      "Unknown member 'x'; expected a, b",
    );
  });

  it('says where, and what is expected in other words, or nothing', () => {
    expect(() => rejectUnknownMembers({ x: 1 }, ['inserts'], 'batch body', '{inserts: [...]}')).to.throw(
      InvalidInput,
      "Unknown member 'x' in batch body; expected {inserts: [...]}",
    );
    expect(() => rejectUnknownMembers({ x: 1 }, new Set(['query']), 'search body', null)).to.throw(
      InvalidInput,
      /^Unknown member 'x' in search body$/,
    );
  });
});
