/**
 * Wire integers beyond 2^53 (bigints from the JSON and MessagePack readers)
 * become stored values without a change, or are refused naming the field.
 */
import { expect } from 'chai';
import { InvalidInput } from '../../../../lib/errors.js';
import {
  fieldFromWire,
  fieldsFromWire,
  Tagged,
  typedFromWire,
  typeOf,
  valueToWire,
} from '../../../../lib/engine/values/index.js';

const P53 = 2n ** 53n + 1n;
const MAX = 2n ** 63n - 1n;
const MIN = -(2n ** 63n);

describe('engine/values/from-wire with 64-bit integers', () => {
  it('stores a bigint within 64 bits as an exact Integer, bare, wrapped or nested', () => {
    const f = fieldsFromWire({
      a: P53,
      b: { type: 'Integer', value: MAX },
      c: { x: [MIN] },
      d: { type: 'Array', value: [P53] },
    });
    expect(f.a).to.equal(P53);
    expect(f.b).to.equal(MAX);
    expect(f.c).to.deep.equal({ x: [MIN] });
    expect(f.d).to.deep.equal([P53]);
    expect(typeOf(f.a!)).to.equal('Integer');
    expect(valueToWire(f.b!, true)).to.deep.equal({ type: 'Integer', value: MAX });
  });

  it('turns a bigint within ±(2^53 - 1) into a number, so one integer has one representation', () => {
    expect(fieldFromWire(42n, 'n')).to.equal(42);
    expect(typedFromWire('Integer', -(2n ** 53n - 1n), 'n')).to.equal(-(2 ** 53 - 1));
  });

  it('refuses an integer beyond 64 bits naming its path', () => {
    expect(() => fieldsFromWire({ huge: 2n ** 63n })).to.throw(
      InvalidInput,
      /Integer 9223372036854775808 at 'huge' is outside the 64-bit signed range/,
    );
    expect(() => fieldsFromWire({ o: { list: [1, MIN - 1n] } })).to.throw(InvalidInput, /at 'o\.list\[1\]'/);
    expect(() => typedFromWire('Integer', 2n ** 64n, 'w')).to.throw(
      InvalidInput,
      "Invalid Integer value for field 'w': 18446744073709551616 is outside the 64-bit signed range",
    );
    expect(() => fieldFromWire(10n ** 60n, 'n')).to.throw(InvalidInput, /1000000000000000000000… \(61 digits\)/);
  });

  it('refuses a whole float beyond 2^53 as an Integer, since it may already be rounded', () => {
    expect(() => typedFromWire('Integer', 2 ** 53, 'n')).to.throw(InvalidInput, /may have been rounded/);
    expect(() => typedFromWire('Integer', 1.5, 'n')).to.throw(InvalidInput, /expected an integer/);
  });

  it('gives Float and Number a bigint only when a float holds it exactly or JS writes that float so', () => {
    expect(typedFromWire('Float', 2n ** 60n, 'f')).to.equal(2 ** 60);
    expect(typedFromWire('Number', 2n ** 60n, 'f')).to.deep.equal(new Tagged('Number', 2 ** 60));
    expect(typedFromWire('Float', BigInt(String(2 ** 60)), 'f')).to.equal(2 ** 60);
    expect(() => typedFromWire('Float', P53, 'f')).to.throw(
      InvalidInput,
      /Invalid Float value for field 'f': the integer 9007199254740993 cannot be held exactly/,
    );
    expect(() => typedFromWire('Number', MAX, 'g')).to.throw(InvalidInput, /field 'g'/);
  });

  it('keeps a bigint exact as a Decimal, and refuses it where only small numbers fit', () => {
    expect(typedFromWire('Decimal', MAX, 'd')).to.deep.equal(new Tagged('Decimal', '9223372036854775807'));
    expect(() => typedFromWire('Duration', P53, 'd')).to.throw(InvalidInput, /Duration value for field 'd'/);
    expect(() => typedFromWire('Duration', { secs: P53, nanos: 0 }, 'd')).to.throw(
      InvalidInput,
      /Duration value for field 'd'/,
    );
    expect(typedFromWire('Duration', { secs: 3n, nanos: 0n }, 'd')).to.deep.equal(
      new Tagged('Duration', { secs: 3, nanos: 0 }),
    );
    expect(() => typedFromWire('DateTime', P53, 't')).to.throw(InvalidInput, /DateTime value for field 't'/);
    expect(() => typedFromWire('Vector', [0.5, P53], 'v')).to.throw(InvalidInput, /field 'v\[1\]'/);
    expect(() => typedFromWire('Binary', [1, P53], 'b')).to.throw(InvalidInput, /field 'b\[1\]'/);
  });
});
