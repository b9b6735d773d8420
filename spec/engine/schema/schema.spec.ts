import { expect } from 'chai';
import { InvalidInput, MESSAGES } from '../../../lib/errors.js';
import {
  emptySchema,
  parseSchema,
  replaceFields,
  schemaToWire,
  setPrimaryKeyAlias,
  updateConstraints,
  type Schema,
} from '../../../lib/engine/schema/index.js';

const T0 = '2024-01-01T00:00:00Z';
const T1 = '2024-02-01T00:00:00Z';

function base(): Schema {
  return parseSchema(
    {
      fields: {
        name: { field_type: 'String', required: true, min: 2, max: 50, regex: '^[A-Za-z ]+$' },
        age: { field_type: 'Integer', min: 0, max: 150, default: 30 },
        role: { field_type: 'String', enums: ['admin', 'user'] },
      },
    },
    T0,
  );
}

describe('parseSchema', () => {
  it('gives the empty schema for undefined, null and {}', () => {
    const expected = {
      fields: {},
      version: 1,
      created_at: T0,
      last_modified: T0,
      bypass_ripple: false,
      primary_key_alias: 'id',
    };
    expect(parseSchema(undefined, T0)).to.deep.equal(expected);
    expect(parseSchema(null, T0)).to.deep.equal(expected);
    expect(parseSchema({}, T0)).to.deep.equal(expected);
    expect(emptySchema(T0)).to.deep.equal(expected);
  });

  it('parses fields and the metadata clients send', () => {
    const s = parseSchema(
      {
        fields: { title: { field_type: 'String', required: true } },
        version: 1,
        bypass_ripple: true,
        created_at: '2023-05-05T10:00:00Z',
        last_modified: '2023-05-06T10:00:00Z',
        primary_key_alias: 'sku',
      },
      T0,
    );
    expect(s).to.deep.equal({
      fields: { title: { field_type: 'String', required: true, unique: false } },
      version: 1,
      bypass_ripple: true,
      created_at: '2023-05-05T10:00:00Z',
      last_modified: '2023-05-06T10:00:00Z',
      primary_key_alias: 'sku',
    });
  });

  it('returns a frozen schema with frozen fields', () => {
    const s = base();
    expect(Object.isFrozen(s)).to.equal(true);
    expect(Object.isFrozen(s.fields)).to.equal(true);
    expect(Object.isFrozen(s.fields.name)).to.equal(true);
  });

  it('passes on the missing field_type message verbatim', () => {
    expect(() => parseSchema({ fields: { age: { required: true } } }, T0)).to.throw(
      InvalidInput,
      /^missing field 'field_type'$/,
    );
  });

  it('rejects unknown top-level keys and bad metadata', () => {
    expect(() => parseSchema({ feilds: {} }, T0)).to.throw(InvalidInput, /Unknown schema key 'feilds'/);
    expect(() => parseSchema({ version: 'one' }, T0)).to.throw(InvalidInput, /version/);
    expect(() => parseSchema({ version: 1.5 }, T0)).to.throw(InvalidInput, /version/);
    expect(() => parseSchema({ bypass_ripple: 'true' }, T0)).to.throw(InvalidInput, /bypass_ripple/);
    expect(() => parseSchema({ created_at: 'yesterday' }, T0)).to.throw(InvalidInput, /created_at/);
    expect(() => parseSchema({ primary_key_alias: 7 }, T0)).to.throw(InvalidInput, /primary_key_alias/);
    expect(() => parseSchema({ fields: [] }, T0)).to.throw(InvalidInput, /fields must be an object/);
    expect(() => parseSchema('schema', T0)).to.throw(InvalidInput);
  });

  describe('field names', () => {
    const parseName = (name: string) => () => parseSchema({ fields: { [name]: { field_type: 'String' } } }, T0);

    it('rejects empty, hostile, $-prefixed and over-long names', () => {
      expect(parseName('')).to.throw(InvalidInput, /must not be empty/);
      expect(parseName('constructor')).to.throw(InvalidInput, /Forbidden field name 'constructor'/);
      expect(parseName('prototype')).to.throw(InvalidInput, /Forbidden/);
      expect(parseName('$where')).to.throw(InvalidInput, /must not start with '\$'/);
      expect(parseName('x'.repeat(257))).to.throw(InvalidInput, /longer than 256/);
    });

    it('rejects a __proto__ field given as an own key', () => {
      const fields = JSON.parse('{"__proto__": {"field_type": "String"}}') as unknown;
      expect(() => parseSchema({ fields }, T0)).to.throw(InvalidInput, /Forbidden field name '__proto__'/);
    });

    it('accepts names up to 256 characters, with dots and spaces', () => {
      expect(parseName('x'.repeat(256))).to.not.throw();
      expect(parseName('address.city')).to.not.throw();
      expect(parseName('first name')).to.not.throw();
    });

    it('allows id to be declared only as String', () => {
      expect(parseSchema({ fields: { id: { field_type: 'String' } } }, T0).fields.id!.field_type).to.equal('String');
      expect(() => parseSchema({ fields: { id: { field_type: 'Integer' } } }, T0)).to.throw(
        InvalidInput,
        /'id' may only be declared as String/,
      );
    });
  });
});

describe('updateConstraints', () => {
  it('changes only the attributes present and keeps the others', () => {
    const s = updateConstraints(base(), { name: { max: 100 } }, T1);
    expect(s.fields.name).to.deep.equal({
      field_type: 'String',
      required: true,
      unique: false,
      min: 2,
      max: 100,
      regex: '^[A-Za-z ]+$',
    });
    expect(s.fields.age).to.deep.equal(base().fields.age);
    expect(s.fields.role).to.deep.equal(base().fields.role);
  });

  it('keeps defaults, enums and bounds in their stored form through an update', () => {
    const start = parseSchema(
      {
        fields: {
          at: { field_type: 'DateTime', min: '2024-01-01T00:00:00Z', default: '2024-06-01T00:00:00Z' },
          price: { field_type: 'Decimal', max: '99.99', default: '1.50' },
          f: { field_type: 'Float', enums: [1, 2.5], default: 1 },
          tags: { field_type: 'Set', default: ['a'] },
          blob: { field_type: 'Binary', default: 'AAE=' },
          meta: { field_type: 'Object', default: { type: 'Object', value: { type: 'String', value: 'x' } } },
        },
      },
      T0,
    );
    const patched = updateConstraints(
      start,
      {
        at: { required: true },
        price: { required: true },
        f: { unique: true },
        tags: { required: true },
        blob: { required: true },
        meta: { required: true },
      },
      T1,
    );
    for (const name of Object.keys(start.fields)) {
      expect(patched.fields[name], name).to.deep.equal({
        ...start.fields[name],
        [name === 'f' ? 'unique' : 'required']: true,
      });
    }
    expect(patched.fields.meta!.default).to.deep.equal({ type: 'String', value: 'x' });
  });

  it('clears an attribute set to null', () => {
    const s = updateConstraints(
      base(),
      { name: { regex: null, required: null, max: null }, age: { default: null }, role: { enums: null } },
      T1,
    );
    expect(s.fields.name).to.deep.equal({ field_type: 'String', required: false, unique: false, min: 2 });
    expect(s.fields.age).to.not.have.property('default');
    expect(s.fields.role).to.deep.equal({ field_type: 'String', required: false, unique: false });
  });

  it('adds a new field when the constraint carries field_type', () => {
    const s = updateConstraints(base(), { email: { field_type: 'String', unique: true } }, T1);
    expect(s.fields.email).to.deep.equal({ field_type: 'String', required: false, unique: true });
    expect(Object.keys(s.fields)).to.deep.equal(['name', 'age', 'role', 'email']);
  });

  it('rejects a new field without field_type with the message verbatim', () => {
    expect(() => updateConstraints(base(), { email: { required: true } }, T1)).to.throw(
      InvalidInput,
      /^missing field 'field_type'$/,
    );
    try {
      updateConstraints(base(), { email: { required: true } }, T1);
    } catch (err) {
      expect((err as InvalidInput).message).to.equal(MESSAGES.missingFieldType);
    }
  });

  it('does not treat inherited properties as existing fields', () => {
    expect(() => updateConstraints(base(), { toString: { required: true } }, T1)).to.throw(
      InvalidInput,
      /missing field 'field_type'/,
    );
  });

  it('changes field_type and re-validates the kept attributes', () => {
    const s = updateConstraints(base(), { role: { field_type: 'Integer', enums: [1, 2] } }, T1);
    expect(s.fields.role).to.deep.equal({ field_type: 'Integer', required: false, unique: false, enums: [1, 2] });
    expect(() => updateConstraints(base(), { role: { field_type: 'Integer' } }, T1)).to.throw(
      InvalidInput,
      /enums\[0\] is not a Integer/,
    );
    expect(() => updateConstraints(base(), { name: { field_type: 'Boolean' } }, T1)).to.throw(
      InvalidInput,
      /not allowed for field_type Boolean/,
    );
    expect(() => updateConstraints(base(), { name: { field_type: null } }, T1)).to.throw(
      InvalidInput,
      /field_type cannot be cleared/,
    );
  });

  it('rejects updates that make the definition inconsistent', () => {
    expect(() => updateConstraints(base(), { age: { min: 40 } }, T1)).to.throw(
      InvalidInput,
      /default 30 does not satisfy/,
    );
    expect(() => updateConstraints(base(), { age: { max: -1 } }, T1)).to.throw(InvalidInput, /greater than max/);
    expect(() => updateConstraints(base(), { age: { colour: 'red' } }, T1)).to.throw(
      InvalidInput,
      /unknown key 'colour'/,
    );
    expect(() => updateConstraints(base(), { age: 5 }, T1)).to.throw(InvalidInput, /constraints must be an object/);
    expect(() => updateConstraints(base(), 'nope', T1)).to.throw(InvalidInput, /constraints must be an object/);
    expect(() => updateConstraints(base(), { $bad: { field_type: 'String' } }, T1)).to.throw(InvalidInput, /'\$'/);
    expect(() => updateConstraints(base(), { id: { field_type: 'UUID' } }, T1)).to.throw(InvalidInput, /'id' may only/);
  });

  it('rejects hostile keys inside a constraint', () => {
    const patch = JSON.parse('{"age": {"__proto__": {"required": true}}}') as unknown;
    expect(() => updateConstraints(base(), patch, T1)).to.throw(InvalidInput, /unknown key '__proto__'/);
  });

  it('removes a field given as null', () => {
    expect(Object.keys(updateConstraints(base(), { role: null }, T1).fields)).to.deep.equal(['name', 'age']);
  });

  it('bumps version and last_modified and keeps the other metadata', () => {
    const start = base();
    const s = updateConstraints(start, { age: { required: true } }, T1);
    expect(s).to.include({
      version: 2,
      created_at: T0,
      last_modified: T1,
      bypass_ripple: false,
      primary_key_alias: 'id',
    });
    expect(updateConstraints(s, {}, T1).version).to.equal(3);
  });

  it('never mutates the schema it is given', () => {
    const start = base();
    const before = schemaToWire(start);
    const s = updateConstraints(start, { age: { required: true }, email: { field_type: 'String' }, role: null }, T1);
    expect(s).to.not.equal(start);
    expect(schemaToWire(start)).to.deep.equal(before);
    expect(Object.isFrozen(s) && Object.isFrozen(s.fields)).to.equal(true);
  });

  it('applies nothing when one field of the update is invalid', () => {
    const start = base();
    expect(() => updateConstraints(start, { age: { required: true }, role: { min: 1, max: 0 } }, T1)).to.throw(
      InvalidInput,
    );
    expect(start.fields.age!.required).to.equal(false);
  });
});

describe('replaceFields', () => {
  it('replaces listed fields wholesale and keeps the others', () => {
    const s = replaceFields(
      base(),
      { name: { field_type: 'String' }, email: { field_type: 'String', unique: true } },
      T1,
    );
    expect(s.fields.name).to.deep.equal({ field_type: 'String', required: false, unique: false });
    expect(s.fields.age).to.deep.equal(base().fields.age);
    expect(s.fields.email).to.deep.equal({ field_type: 'String', required: false, unique: true });
    expect(s).to.include({ version: 2, last_modified: T1, created_at: T0 });
  });

  it('requires field_type on every listed field', () => {
    expect(() => replaceFields(base(), { name: { required: true } }, T1)).to.throw(
      InvalidInput,
      /^missing field 'field_type'$/,
    );
  });

  it('removes a field given as null and rejects non-object input', () => {
    expect(Object.keys(replaceFields(base(), { age: null }, T1).fields)).to.deep.equal(['name', 'role']);
    expect(() => replaceFields(base(), [], T1)).to.throw(InvalidInput);
  });
});

describe('setPrimaryKeyAlias', () => {
  it('sets the alias and bumps the version', () => {
    const s = setPrimaryKeyAlias(base(), 'email', T1);
    expect(s).to.include({ primary_key_alias: 'email', version: 2, last_modified: T1 });
    expect(Object.isFrozen(s)).to.equal(true);
  });

  it('rejects a non-string or invalid alias', () => {
    expect(() => setPrimaryKeyAlias(base(), 5, T1)).to.throw(InvalidInput);
    expect(() => setPrimaryKeyAlias(base(), '', T1)).to.throw(InvalidInput);
  });
});

describe('schemaToWire', () => {
  it('renders every member of every field with nulls and [] for unset options', () => {
    const s = parseSchema({ fields: { title: { field_type: 'String', required: true } }, bypass_ripple: true }, T0);
    expect(schemaToWire(s)).to.deep.equal({
      fields: {
        title: {
          field_type: 'String',
          default: null,
          unique: false,
          required: true,
          enums: [],
          max: null,
          min: null,
          regex: null,
        },
      },
      version: 1,
      created_at: T0,
      last_modified: T0,
      bypass_ripple: true,
      primary_key_alias: 'id',
    });
  });

  it('orders field members as the server reports them', () => {
    const wire = schemaToWire(base());
    expect(Object.keys(wire)).to.deep.equal([
      'fields',
      'version',
      'created_at',
      'last_modified',
      'bypass_ripple',
      'primary_key_alias',
    ]);
    expect(Object.keys(wire.fields.name!)).to.deep.equal([
      'field_type',
      'default',
      'unique',
      'required',
      'enums',
      'max',
      'min',
      'regex',
    ]);
  });

  it('renders defaults, bounds and enums as bare wire values', () => {
    const s = parseSchema(
      {
        fields: {
          at: { field_type: 'DateTime', min: '2024-01-01T00:00:00Z', default: '2024-06-01T00:00:00Z' },
          price: { field_type: 'Decimal', min: 0, max: '99.99', default: 5 },
          f: { field_type: 'Float', enums: [1, 2.5], default: 1 },
          v: { field_type: 'Vector', max: 3, default: [0, 0], index: { type: 'vector', metric: 'cosine', m: 16 } },
        },
      },
      T0,
    );
    const wire = schemaToWire(s);
    expect(wire.fields.at).to.include({
      default: '2024-06-01T00:00:00+00:00',
      min: '2024-01-01T00:00:00+00:00',
      max: null,
    });
    expect(wire.fields.price).to.include({ default: '5', min: 0, max: '99.99' });
    expect(wire.fields.f).to.deep.include({ default: 1, enums: [1, 2.5] });
    expect(wire.fields.v).to.deep.include({
      default: [0, 0],
      max: 3,
      index: { type: 'vector', metric: 'cosine', m: 16 },
    });
    expect(JSON.parse(JSON.stringify(wire))).to.deep.equal(wire);
  });

  it('includes index only when one is set', () => {
    expect(schemaToWire(base()).fields.name).to.not.have.property('index');
  });

  it('parses back to the same schema', () => {
    const start = parseSchema(
      {
        fields: {
          ...schemaToWire(base()).fields,
          at: { field_type: 'DateTime', max: '2030-01-01T00:00:00Z' },
          v: { field_type: 'Vector', index: { type: 'vector', metric: 'dotproduct' } },
        },
      },
      T0,
    );
    expect(parseSchema(schemaToWire(start), T1)).to.deep.equal(start);
  });

  it('shares no mutable state with the schema', () => {
    const s = parseSchema({ fields: { v: { field_type: 'Vector', index: { type: 'hash' } } } }, T0);
    const wire = schemaToWire(s);
    (wire.fields.v!.index as { type: string }).type = 'btree';
    expect(s.fields.v!.index).to.deep.equal({ type: 'hash' });
  });
});
