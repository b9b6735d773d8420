import { expect } from 'chai';
import { compileDefinition, STEPS } from '../../lib/functions/index.js';
import { StepMembers } from '../../lib/functions/compiler/index.js';

const base = { label: 'f', name: 'F', parameters: {}, functions: [] as unknown[] };

function compileError(def: unknown): string {
  try {
    compileDefinition(def);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a compile error');
}

describe('functions: compiler', () => {
  it('names every step type once in the table', () => {
    const types = STEPS.map((s) => s.type);
    expect(new Set(types).size).to.equal(types.length);
  });

  it('compiles a definition and tolerates extra members', () => {
    const fn = compileDefinition({
      ...base,
      description: 'd',
      version: '1.0',
      tags: ['a'],
      extra: { anything: true },
      parameters: {
        name: { required: true, param_type: 'String' },
        n: { required: false, default: 3, type: 'Integer' },
      },
      functions: [
        { type: 'Insert', collection: 'users', record: { name: '{{name}}' }, future_member: 1 },
        { type: 'FindAll', collection: 'users' },
      ],
    });
    expect(fn.label).to.equal('f');
    expect(fn.steps.map((s) => s.spec.type)).to.deep.equal(['Insert', 'FindAll']);
    expect(fn.steps[1]!.path).to.equal('functions[1]');
    expect(fn.parameters.get('n')).to.deep.equal({ required: false, default: 3 });
    expect(fn.transactionSafe).to.equal(true);
  });

  it('names the path of an unknown step type', () => {
    expect(compileError({ ...base, functions: [{ type: 'FindAll', collection: 'c' }, { type: 'Qurey' }] })).to.equal(
      "functions[1]: unknown step type 'Qurey'",
    );
  });

  it('names the path of a missing or bad member', () => {
    expect(compileError({ ...base, functions: [{ type: 'Insert', collection: 'c' }] })).to.equal(
      "functions[0]: missing required member 'record'",
    );
    expect(
      compileError({ ...base, functions: [{ type: 'Insert', collection: 'c', record: {}, bypass_ripple: 'yes' }] }),
    ).to.equal('functions[0].bypass_ripple: must be a boolean');
    expect(compileError({ ...base, functions: [{ type: 'Insert', collection: 'c', record: { a: '{{}}' } }] })).to.match(
      /^functions\[0\].record.a: bad placeholder/,
    );
  });

  it('requires label, name and functions, and checks parameters', () => {
    expect(compileError({ name: 'x', functions: [] })).to.match(/^label: missing required member/);
    expect(compileError({ label: 'x', functions: [] })).to.match(/^name: missing required member/);
    expect(compileError({ label: 'x', name: 'x' })).to.match(/^functions: missing required member/);
    expect(compileError({ ...base, parameters: { p: { required: 'yes' } } })).to.equal(
      'parameters.p.required: must be a boolean',
    );
    expect(
      compileError({
        ...base,
        functions: [{ type: 'Insert', collection: 'c', record: { type: 'Parameter', name: 'ghost' } }],
      }),
    ).to.equal("functions[0].record: unknown parameter 'ghost'");
  });

  it('refuses prototype keys anywhere in a definition', () => {
    expect(compileError(JSON.parse('{"label":"x","name":"x","functions":[],"__proto__":{}}'))).to.match(
      /forbidden member name '__proto__'/,
    );
    expect(
      compileError(
        JSON.parse('{"label":"x","name":"x","functions":[{"type":"FindAll","collection":"c","constructor":1}]}'),
      ),
    ).to.match(/^functions\[0\]: forbidden member name 'constructor'/);
    expect(compileError({ ...base, functions: [{ type: 'constructor' }] })).to.equal(
      "functions[0]: unknown step type 'constructor'",
    );
    expect(compileError({ ...base, functions: [{ type: 'toString' }] })).to.equal(
      "functions[0]: unknown step type 'toString'",
    );
  });

  it('checks transaction_config: auto_rollback required, isolation level known', () => {
    expect(compileError({ ...base, transaction_config: { enabled: true } })).to.match(
      /^transaction_config.auto_rollback: missing required/,
    );
    expect(
      compileError({ ...base, transaction_config: { enabled: true, auto_rollback: true, isolation_level: 'Chaos' } }),
    ).to.match(/Invalid isolation level/);
    const fn = compileDefinition({
      ...base,
      transaction_config: { enabled: true, auto_rollback: false, isolation_level: 'Serializable' },
    });
    expect(fn.transaction).to.deep.equal({ isolationLevel: 'Serializable' });
    expect(
      compileDefinition({ ...base, transaction_config: { enabled: false, auto_rollback: true } }).transaction,
    ).to.equal(undefined);
  });

  it('reads path routes and their system-supplied parameters', () => {
    const fn = compileDefinition({ ...base, http_method: 'get', http_path: '/users/:id' });
    expect({ method: fn.route?.method, path: fn.route?.path, shape: fn.route?.pattern.shape }).to.deep.equal({
      method: 'GET',
      path: '/users/:id',
      shape: '/users/:',
    });
    expect([...fn.systemParameters]).to.deep.equal(['id']);
    expect(compileError({ ...base, http_method: 'GET' })).to.match(/^http_path:/);
    expect(compileError({ ...base, http_method: 'TRACE', http_path: '/x' })).to.match(/^http_method:/);
  });

  it("reads other clients' spellings of a member as aliases, canonical first, errors naming the member", () => {
    const ctx = { transactional: false };
    const go = new StepMembers({ type: 'BatchDelete', ids: ['a'] }, 'functions[3]', ctx, () => []);
    expect(go.raw(['record_ids', 'ids'])).to.deep.equal(['a']);
    const both = new StepMembers({ record_ids: ['x'], ids: ['y'] }, 'functions[3]', ctx, () => []);
    expect(both.optionalStringList(['record_ids', 'ids'])).to.deep.equal(['x']);
    const bad = new StepMembers({ ids: 'nope' }, 'functions[3]', ctx, () => []);
    expect(() => bad.optionalStringList(['record_ids', 'ids'])).to.throw(
      'functions[3].ids: must be an array of strings',
    );
    expect(() => bad.string(['collection', 'coll'])).to.throw("functions[3]: missing required member 'collection'");
  });

  it('bounds the size of a definition', () => {
    const many = Array.from({ length: 2001 }, () => ({ type: 'FindAll', collection: 'c' }));
    expect(compileError({ ...base, functions: many })).to.match(
      /^functions\[2000\]: a definition holds at most 2000 steps/,
    );
  });
});
