import { expect } from 'chai';
import { InvalidInput } from '../../../lib/errors.js';
import {
  applyActionSequence,
  applyUpdateAction,
  parseActionSequence,
  UPDATE_ACTIONS,
} from '../../../lib/engine/records/update-actions.js';
import { fieldsFromWire, Tagged, typeOf, type Fields } from '../../../lib/engine/values/index.js';

const record = (body: Record<string, unknown>): Fields => Object.freeze(fieldsFromWire({ id: 'r1', ...body }));
const apply = (body: Record<string, unknown>, action: string, field: string, value?: unknown) =>
  applyUpdateAction(record(body), action, field, value);

function fails(fn: () => unknown, message: string | RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught, 'expected a throw').to.be.instanceOf(InvalidInput);
  if (typeof message === 'string') expect((caught as Error).message).to.equal(message);
  else expect((caught as Error).message).to.match(message);
}

describe('engine/update-actions', () => {
  it('lists the twelve actions of protocol.md 2.3', () => {
    expect(UPDATE_ACTIONS).to.deep.equal([
      'increment',
      'decrement',
      'multiply',
      'divide',
      'modulo',
      'push',
      'pop',
      'shift',
      'unshift',
      'remove',
      'append',
      'clear',
    ]);
  });

  it('rejects an unknown action listing the valid ones', () => {
    fails(
      () => apply({ n: 1 }, 'explode', 'n', 1),
      /^Unknown update action 'explode'; expected one of increment, decrement, .*clear$/,
    );
    fails(() => apply({ n: 1 }, 'Increment', 'n', 1), /Unknown update action 'Increment'/);
  });

  it('returns a new object, keeps other fields and key order, and never mutates the input', () => {
    const before = record({ a: 1, n: 2, z: [1] });
    const out = applyUpdateAction(before, 'increment', 'n', 1);
    expect(out).not.to.equal(before);
    expect(Object.keys(out)).to.deep.equal(['id', 'a', 'n', 'z']);
    expect(out.z).to.equal(before.z);
    expect(before.n).to.equal(2);
    expect(out.n).to.equal(3);
  });

  it('rejects a missing, empty, hostile or id field name', () => {
    fails(() => apply({}, 'increment', '', 1), /^Failed to apply action 'increment': field name/);
    fails(() => applyUpdateAction(record({}), 'clear', 5 as unknown as string, null), /field name/);
    fails(() => apply({}, 'push', '__proto__', 1), /Forbidden field name '__proto__'/);
    fails(() => apply({}, 'append', 'id', 'x'), "Failed to apply action 'append': field 'id' cannot be modified");
  });

  it('rejects a dotted field name unless it is an existing top-level key', () => {
    fails(
      () => apply({ stats: { views: 1 } }, 'increment', 'stats.views', 1),
      "Failed to apply action 'increment': nested field paths are not supported ('stats.views')",
    );
    const literal = applyUpdateAction(Object.freeze({ id: 'r1', 'a.b': 1 }), 'increment', 'a.b', 1);
    expect(literal['a.b']).to.equal(2);
  });

  describe('increment and decrement', () => {
    it('add and subtract the value', () => {
      expect(apply({ n: 5 }, 'increment', 'n', 3).n).to.equal(8);
      expect(apply({ n: 5 }, 'decrement', 'n', 3).n).to.equal(2);
      expect(apply({ n: 5 }, 'increment', 'n', 2n).n).to.equal(7);
    });

    it('default the value to 1 when it is null or absent', () => {
      expect(apply({ n: 5 }, 'increment', 'n', null).n).to.equal(6);
      expect(apply({ n: 5 }, 'decrement', 'n').n).to.equal(4);
    });

    it('treat a missing field as 0', () => {
      expect(apply({}, 'increment', 'n', 2).n).to.equal(2);
      expect(apply({}, 'decrement', 'n', null).n).to.equal(-1);
    });

    it('keep an Integer integer while whole and let it become Float otherwise', () => {
      const whole = apply({ n: 5 }, 'increment', 'n', { type: 'Float', value: 2 }).n!;
      expect(whole).to.equal(7);
      expect(typeOf(whole)).to.equal('Integer');
      expect(typeOf(apply({ n: 5 }, 'increment', 'n', 0.5).n!)).to.equal('Float');
    });

    it('keep a Float a Float even when the result is whole', () => {
      const out = apply({ f: 1.5 }, 'increment', 'f', 0.5).f!;
      expect(out).to.deep.equal(new Tagged('Float', 2));
      expect(typeOf(out)).to.equal('Float');
      const tagged = apply({ f: { type: 'Float', value: 2 } }, 'increment', 'f', 1).f!;
      expect(typeOf(tagged)).to.equal('Float');
      expect(apply({ f: { type: 'Float', value: 2 } }, 'increment', 'f', 0.25).f).to.equal(2.25);
    });

    it('keep the Number tag', () => {
      expect(apply({ c: { type: 'Number', value: 3 } }, 'increment', 'c', 1).c).to.deep.equal(new Tagged('Number', 4));
    });

    it('keep Decimal exact to the larger scale', () => {
      expect(apply({ p: { type: 'Decimal', value: '29.99' } }, 'increment', 'p', 0.01).p).to.deep.equal(
        new Tagged('Decimal', '30.00'),
      );
      expect(apply({ p: { type: 'Decimal', value: '0.1' } }, 'increment', 'p', '0.2').p).to.deep.equal(
        new Tagged('Decimal', '0.3'),
      );
      expect(apply({ p: { type: 'Decimal', value: '10' } }, 'decrement', 'p', null).p).to.deep.equal(
        new Tagged('Decimal', '9'),
      );
    });

    it('take the operand type for a missing field', () => {
      expect(apply({}, 'increment', 'p', { type: 'Decimal', value: '1.50' }).p).to.deep.equal(
        new Tagged('Decimal', '1.50'),
      );
      expect(apply({}, 'increment', 'f', { type: 'Float', value: 1 }).f).to.deep.equal(new Tagged('Float', 1));
    });

    it('reject a non-numeric field', () => {
      fails(() => apply({ s: 'x' }, 'increment', 's', 1), "Failed to apply action 'increment': field not numeric");
      fails(() => apply({ s: null }, 'decrement', 's', 1), "Failed to apply action 'decrement': field not numeric");
      fails(
        () => apply({ at: '2024-01-01T00:00:00Z' }, 'increment', 'at', 1),
        "Failed to apply action 'increment': field not numeric",
      );
      fails(() => apply({ b: true }, 'increment', 'b', 1), "Failed to apply action 'increment': field not numeric");
    });

    it('reject a non-numeric value', () => {
      fails(() => apply({ n: 1 }, 'increment', 'n', 'lots'), "Failed to apply action 'increment': value not numeric");
      fails(() => apply({ n: 1 }, 'increment', 'n', [1]), "Failed to apply action 'increment': value not numeric");
      fails(() => apply({ n: 1 }, 'increment', 'n', true), "Failed to apply action 'increment': value not numeric");
    });
  });

  describe('multiply, divide and modulo', () => {
    it('compute the result', () => {
      expect(apply({ n: 6 }, 'multiply', 'n', 7).n).to.equal(42);
      expect(apply({ n: 7 }, 'divide', 'n', 2).n).to.equal(3.5);
      expect(apply({ n: 8 }, 'divide', 'n', 2).n).to.equal(4);
      expect(apply({ n: 7 }, 'modulo', 'n', 3).n).to.equal(1);
      expect(apply({ n: -7 }, 'modulo', 'n', 3).n).to.equal(-1);
    });

    it('keep the stored numeric type', () => {
      expect(apply({ f: 2.5 }, 'multiply', 'f', 2).f).to.deep.equal(new Tagged('Float', 5));
      expect(apply({ c: { type: 'Number', value: 9 } }, 'divide', 'c', 3).c).to.deep.equal(new Tagged('Number', 3));
      expect(apply({ p: { type: 'Decimal', value: '1.5' } }, 'multiply', 'p', '1.5').p).to.deep.equal(
        new Tagged('Decimal', '2.25'),
      );
      expect(apply({ p: { type: 'Decimal', value: '10' } }, 'divide', 'p', 4).p).to.deep.equal(
        new Tagged('Decimal', '2.5'),
      );
      expect(apply({ p: { type: 'Decimal', value: '10.5' } }, 'modulo', 'p', 3).p).to.deep.equal(
        new Tagged('Decimal', '1.5'),
      );
    });

    it('reject a missing or non-numeric field', () => {
      for (const action of ['multiply', 'divide', 'modulo']) {
        fails(() => apply({}, action, 'n', 2), `Failed to apply action '${action}': field not numeric`);
        fails(() => apply({ n: [1] }, action, 'n', 2), `Failed to apply action '${action}': field not numeric`);
      }
    });

    it('require a value', () => {
      fails(() => apply({ n: 2 }, 'multiply', 'n', null), "Failed to apply action 'multiply': value not numeric");
    });

    it('reject division by zero for divide and modulo', () => {
      fails(() => apply({ n: 1 }, 'divide', 'n', 0), "Failed to apply action 'divide': division by zero");
      fails(() => apply({ n: 1 }, 'modulo', 'n', 0), "Failed to apply action 'modulo': division by zero");
      fails(
        () => apply({ n: 1 }, 'divide', 'n', { type: 'Decimal', value: '0.00' }),
        "Failed to apply action 'divide': division by zero",
      );
    });

    it('reject results that overflow', () => {
      fails(() => apply({ n: 1e308 }, 'multiply', 'n', 10), "Failed to apply action 'multiply': result out of range");
    });
  });

  describe('on 64-bit Integers', () => {
    const MAX = 2n ** 63n - 1n;
    const MIN = -(2n ** 63n);

    it('compute exactly past 2^53 and keep the result an Integer', () => {
      expect(apply({ n: 9007199254740991 }, 'increment', 'n', 2).n).to.equal(2n ** 53n + 1n);
      expect(apply({ n: 2 ** 52 }, 'multiply', 'n', 4).n).to.equal(2n ** 54n);
      expect(apply({ n: MAX - 1n }, 'increment', 'n', 1).n).to.equal(MAX);
      expect(apply({ n: MIN }, 'increment', 'n', MAX).n).to.equal(-1);
      expect(apply({ n: 2n ** 53n + 1n }, 'decrement', 'n', 2).n).to.equal(9007199254740991);
      expect(apply({ n: MAX }, 'modulo', 'n', 10).n).to.equal(7);
      expect(apply({ n: 2n ** 62n }, 'divide', 'n', 2n ** 60n).n).to.equal(4);
      expect(apply({}, 'decrement', 'n', MAX).n).to.equal(-MAX);
      expect(typeOf(apply({ n: 1 }, 'increment', 'n', MAX - 1n).n!)).to.equal('Integer');
    });

    it('refuse a result beyond 64 bits', () => {
      fails(
        () => apply({ n: MAX }, 'increment', 'n', 1),
        "Failed to apply action 'increment': result out of the 64-bit integer range",
      );
      fails(
        () => apply({ n: MIN }, 'decrement', 'n', null),
        "Failed to apply action 'decrement': result out of the 64-bit integer range",
      );
      fails(
        () => apply({ n: 2 ** 40 }, 'multiply', 'n', 2 ** 40),
        "Failed to apply action 'multiply': result out of the 64-bit integer range",
      );
    });

    it('refuse a quotient that is not whole, and mixing with a float', () => {
      fails(() => apply({ n: MAX }, 'divide', 'n', 2), /the quotient is not whole/);
      fails(
        () => apply({ n: MAX }, 'increment', 'n', 0.5),
        "Failed to apply action 'increment': an Integer beyond ±(2^53 - 1) only combines with Integers",
      );
      fails(() => apply({ f: 1.5 }, 'increment', 'f', MAX), /only combines with Integers/);
      fails(() => apply({ p: { type: 'Decimal', value: '1' } }, 'multiply', 'p', MAX), /only combines with Integers/);
    });
  });

  describe('push and unshift', () => {
    it('append and prepend to an array', () => {
      expect(apply({ a: [1, 2] }, 'push', 'a', 3).a).to.deep.equal([1, 2, 3]);
      expect(apply({ a: [1, 2] }, 'unshift', 'a', 0).a).to.deep.equal([0, 1, 2]);
    });

    it('create the array when the field is missing', () => {
      expect(apply({}, 'push', 'a', 'x').a).to.deep.equal(['x']);
      expect(apply({}, 'unshift', 'a', 'x').a).to.deep.equal(['x']);
    });

    it('store pushed values raw, as nested array elements', () => {
      const out = apply({ a: [] }, 'push', 'a', { k: '2024-01-01T00:00:00Z', list: [1] }).a as readonly unknown[];
      expect(out[0]).to.deep.equal({ k: '2024-01-01T00:00:00Z', list: [1] });
      expect(apply({ a: [] }, 'push', 'a', '2024-01-01T00:00:00Z').a).to.deep.equal(['2024-01-01T00:00:00Z']);
      expect(apply({ a: [] }, 'push', 'a', null).a).to.deep.equal([null]);
    });

    it('produce new stored arrays and leave the stored array untouched', () => {
      const before = record({ a: [1], b: ['x'] });
      const out = applyUpdateAction(before, 'push', 'a', 2);
      expect(out.a).to.deep.equal([1, 2]);
      // Numbers are kept as doubles rather than frozen (values/stored-array.ts); other arrays are frozen.
      expect(Object.isFrozen(applyUpdateAction(before, 'push', 'b', 'y').b)).to.equal(true);
      expect(before.a).to.deep.equal([1]);
      expect(before.b).to.deep.equal(['x']);
    });

    it('keep a Set a Set without duplicates', () => {
      const set = { type: 'Set', value: ['a'] };
      expect(apply({ s: set }, 'push', 's', 'b').s).to.deep.equal(new Tagged('Set', ['a', 'b']));
      expect(apply({ s: set }, 'push', 's', 'a').s).to.deep.equal(new Tagged('Set', ['a']));
    });

    it('keep a Vector a Vector and require numbers in it', () => {
      const vec = { type: 'Vector', value: [0.5] };
      expect(apply({ v: vec }, 'push', 'v', 1).v).to.deep.equal(new Tagged('Vector', [0.5, 1]));
      fails(() => apply({ v: vec }, 'push', 'v', 'x'), "Failed to apply action 'push': value not numeric");
    });

    it('reject a non-array field', () => {
      fails(() => apply({ s: 'x' }, 'push', 's', 1), "Failed to apply action 'push': field not an array");
      fails(() => apply({ s: null }, 'unshift', 's', 1), "Failed to apply action 'unshift': field not an array");
      fails(() => apply({ s: { a: 1 } }, 'push', 's', 1), "Failed to apply action 'push': field not an array");
    });

    it('reject hostile keys inside pushed objects', () => {
      fails(
        () => apply({ a: [] }, 'push', 'a', JSON.parse('{"__proto__": {"x": 1}}')),
        /Forbidden field name '__proto__'/,
      );
    });
  });

  describe('pop and shift', () => {
    it('remove the last and the first element', () => {
      expect(apply({ a: [1, 2, 3] }, 'pop', 'a', null).a).to.deep.equal([1, 2]);
      expect(apply({ a: [1, 2, 3] }, 'shift', 'a', null).a).to.deep.equal([2, 3]);
    });

    it('leave an empty array empty', () => {
      expect(apply({ a: [] }, 'pop', 'a', null).a).to.deep.equal([]);
      expect(apply({ a: [] }, 'shift', 'a', null).a).to.deep.equal([]);
    });

    it('keep Set and Vector tags', () => {
      expect(apply({ s: { type: 'Set', value: [1, 2] } }, 'pop', 's', null).s).to.deep.equal(new Tagged('Set', [1]));
      expect(apply({ v: { type: 'Vector', value: [1, 2] } }, 'shift', 'v', null).v).to.deep.equal(
        new Tagged('Vector', [2]),
      );
    });

    it('reject a missing or non-array field', () => {
      fails(() => apply({}, 'pop', 'a', null), "Failed to apply action 'pop': field not an array");
      fails(() => apply({ a: 'abc' }, 'shift', 'a', null), "Failed to apply action 'shift': field not an array");
    });
  });

  describe('remove', () => {
    it('removes every element equal to the value', () => {
      expect(apply({ a: [1, 2, 1, 3] }, 'remove', 'a', 1).a).to.deep.equal([2, 3]);
      expect(apply({ a: [{ x: 1 }, { x: 2 }] }, 'remove', 'a', { x: 1 }).a).to.deep.equal([{ x: 2 }]);
      expect(apply({ a: ['x'] }, 'remove', 'a', 'y').a).to.deep.equal(['x']);
    });

    it('compares numbers and typed wrappers by value', () => {
      expect(apply({ a: [1, 2] }, 'remove', 'a', { type: 'Integer', value: 2 }).a).to.deep.equal([1]);
      expect(apply({ a: [1.5, 2] }, 'remove', 'a', { type: 'Decimal', value: '1.50' }).a).to.deep.equal([2]);
    });

    it('keeps a Set tag', () => {
      expect(apply({ s: { type: 'Set', value: ['a', 'b'] } }, 'remove', 's', 'a').s).to.deep.equal(
        new Tagged('Set', ['b']),
      );
    });

    it('rejects a missing or non-array field', () => {
      fails(() => apply({}, 'remove', 'a', 1), "Failed to apply action 'remove': field not an array");
      fails(() => apply({ a: 1 }, 'remove', 'a', 1), "Failed to apply action 'remove': field not an array");
    });
  });

  describe('append', () => {
    it('concatenates to a string field', () => {
      expect(apply({ s: 'foo' }, 'append', 's', 'bar').s).to.equal('foobar');
      expect(apply({ s: 'foo' }, 'append', 's', { type: 'String', value: '!' }).s).to.equal('foo!');
    });

    it('creates the field when missing', () => {
      expect(apply({}, 'append', 's', 'new').s).to.equal('new');
    });

    it('rejects a non-string field', () => {
      fails(() => apply({ s: 1 }, 'append', 's', 'x'), "Failed to apply action 'append': field not a string");
      fails(() => apply({ s: ['a'] }, 'append', 's', 'x'), "Failed to apply action 'append': field not a string");
      fails(() => apply({ s: null }, 'append', 's', 'x'), "Failed to apply action 'append': field not a string");
    });

    it('rejects a non-string value', () => {
      fails(() => apply({ s: 'a' }, 'append', 's', 1), "Failed to apply action 'append': value not a string");
      fails(() => apply({ s: 'a' }, 'append', 's', null), "Failed to apply action 'append': value not a string");
    });
  });

  describe('clear', () => {
    it('empties arrays and strings', () => {
      expect(apply({ a: [1, 2] }, 'clear', 'a', null).a).to.deep.equal([]);
      expect(apply({ s: 'abc' }, 'clear', 's', null).s).to.equal('');
    });

    it('empties Sets and Vectors keeping their tag', () => {
      expect(apply({ s: { type: 'Set', value: [1] } }, 'clear', 's', null).s).to.deep.equal(new Tagged('Set', []));
      expect(apply({ v: { type: 'Vector', value: [1] } }, 'clear', 'v', null).v).to.deep.equal(
        new Tagged('Vector', []),
      );
    });

    it('sets any other value, or a missing field, to null', () => {
      expect(apply({ n: 5 }, 'clear', 'n', null).n).to.equal(null);
      expect(apply({ o: { a: 1 } }, 'clear', 'o', null).o).to.equal(null);
      expect(apply({ at: '2024-01-01T00:00:00Z' }, 'clear', 'at', null).at).to.equal(null);
      const out = apply({}, 'clear', 'gone', null);
      expect(out).to.have.property('gone', null);
    });
  });

  describe('parseActionSequence', () => {
    it('parses [action, field, value] triples in order', () => {
      expect(
        parseActionSequence([
          ['increment', 'n', 2],
          ['push', 'tags', 'x'],
          ['pop', 'tags', null],
        ]),
      ).to.deep.equal([
        { action: 'increment', field: 'n', value: 2 },
        { action: 'push', field: 'tags', value: 'x' },
        { action: 'pop', field: 'tags', value: null },
      ]);
    });

    it('accepts pairs without a value and {action, field, value} objects', () => {
      expect(
        parseActionSequence([
          ['clear', 's'],
          { action: 'append', field: 's', value: 'x' },
          { action: 'pop', field: 'a' },
        ]),
      ).to.deep.equal([
        { action: 'clear', field: 's', value: null },
        { action: 'append', field: 's', value: 'x' },
        { action: 'pop', field: 'a', value: null },
      ]);
    });

    it('accepts an empty sequence', () => {
      expect(parseActionSequence([])).to.deep.equal([]);
    });

    it('rejects anything but an array of steps', () => {
      for (const bad of [null, {}, 'increment', ['increment', 'n', 1]]) {
        expect(() => parseActionSequence(bad)).to.throw(InvalidInput);
      }
    });

    it('rejects malformed steps naming their index', () => {
      fails(() => parseActionSequence([['increment', 'n', 1], ['push']]), /sequence\[1\]/);
      fails(() => parseActionSequence([['a', 'b', 'c', 'd']]), /sequence\[0\]/);
      fails(() => parseActionSequence([{ action: 'push', field: 'a', extra: 1 }]), /sequence\[0\]/);
      fails(() => parseActionSequence([['push', 3, 1]]), /sequence\[0\]: field must be a non-empty string/);
      fails(() => parseActionSequence([['push', 'id', 1]]), /field 'id' cannot be modified/);
    });

    it('rejects unknown actions with the standard message and the step index', () => {
      fails(
        () =>
          parseActionSequence([
            ['increment', 'n', 1],
            ['explode', 'n', 1],
          ]),
        /^Unknown update action 'explode'; expected one of .* \(at sequence\[1\]\)$/,
      );
    });
  });

  describe('applyActionSequence', () => {
    it('applies steps in order, each seeing the previous result', () => {
      const steps = parseActionSequence([
        ['increment', 'n', 2],
        ['multiply', 'n', 10],
        ['push', 'log', 'done'],
      ]);
      expect(applyActionSequence(record({ n: 1 }), steps)).to.deep.equal({ id: 'r1', n: 30, log: ['done'] });
    });

    it('throws on the first failing step and leaves the input untouched', () => {
      const before = record({ n: 1, s: 'x' });
      const steps = parseActionSequence([
        ['increment', 'n', 1],
        ['increment', 's', 1],
      ]);
      fails(() => applyActionSequence(before, steps), "Failed to apply action 'increment': field not numeric");
      expect(before.n).to.equal(1);
    });
  });
});
