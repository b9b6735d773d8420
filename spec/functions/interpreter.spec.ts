import { expect } from 'chai';
import { Database } from '../../lib/engine/index.js';
import { StepFailed } from '../../lib/errors.js';
import { callStoredFunction, compileDefinition, type CompiledFunction } from '../../lib/functions/index.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';

describe('functions: interpreter', () => {
  let dir: string;
  let db: Database;
  const registry = new Map<string, CompiledFunction>();
  const env = () => ({ engine: db, lookup: (l: string) => registry.get(l) });
  const define = (def: Record<string, unknown>) => {
    const fn = compileDefinition({ name: 'n', parameters: {}, ...def });
    registry.set(fn.label, fn);
    return fn;
  };

  beforeEach(async () => {
    dir = tempDir();
    db = await Database.open({ dataDir: dir });
    registry.clear();
  });
  afterEach(async () => {
    await db.close();
    removeDir(dir);
  });

  it('runs Insert then FindAll, parameters substituted with their JSON types', async () => {
    const fn = define({
      label: 'add',
      parameters: { name: { required: true }, age: { required: false, default: 30 } },
      functions: [
        { type: 'Insert', collection: 'users', record: { name: '{{name}}', age: '{{age}}', note: 'hi {{name}}' } },
        { type: 'FindAll', collection: 'users' },
      ],
    });
    const result = await callStoredFunction(env(), fn, { name: 'Ann' });
    expect(result.records).to.have.length(1);
    expect(result.records[0]).to.include({ name: 'Ann', age: 30, note: 'hi Ann' });
    expect(result.stats.stages_executed).to.equal(2);
    expect(result.stats.stage_stats.map((s) => [s.stage, s.input_count, s.output_count])).to.deep.equal([
      ['Insert', 0, 1],
      ['FindAll', 1, 1],
    ]);
  });

  it('rejects missing required and unknown parameters', async () => {
    const fn = define({ label: 'p', parameters: { a: { required: true } }, functions: [] });
    await expectRejected(callStoredFunction(env(), fn, {}), /Missing required parameter 'a'/);
    await expectRejected(callStoredFunction(env(), fn, { a: 1, b: 2 }), /Unknown parameter 'b'/);
  });

  it('keeps typed wrappers of a Parameter reference', async () => {
    const fn = define({
      label: 'typed',
      parameters: { doc: { required: true } },
      functions: [{ type: 'Insert', collection: 'c', record: { type: 'Parameter', name: 'doc' } }],
    });
    const result = await callStoredFunction(env(), fn, {
      doc: { when: { type: 'DateTime', value: '2026-01-02T03:04:05Z' } },
    });
    expect(result.records[0]!.when!.constructor.name).to.equal('Tagged');
  });

  it('reads the working record fields as placeholders', async () => {
    const fn = define({
      label: 'chain',
      functions: [
        { type: 'Insert', collection: 'a', record: { token: 'xyz' } },
        { type: 'Insert', collection: 'b', record: { copied: '{{token}}', from: '{{id}}' } },
      ],
    });
    const result = await callStoredFunction(env(), fn, {});
    expect(result.records[0]).to.include({ copied: 'xyz' });
    expect(result.records[0]!.from).to.be.a('string');
  });

  it('turns a failing step into StepFailed with its index and type', async () => {
    const fn = define({
      label: 'bad',
      functions: [
        { type: 'FindAll', collection: 'c' },
        { type: 'Insert', collection: 'c', record: { x: '{{nope}}' } },
      ],
    });
    try {
      await callStoredFunction(env(), fn, {});
      expect.fail('expected a failure');
    } catch (err) {
      expect(err).to.be.instanceOf(StepFailed);
      expect(err).to.include({ index: 1, type: 'Insert', status: 400 });
    }
  });

  it('commits a transactional function on success and discards everything on failure', async () => {
    const ok = define({
      label: 'tx-ok',
      transaction_config: { enabled: true, auto_rollback: true },
      functions: [
        { type: 'Insert', collection: 't', record: { n: 1 } },
        { type: 'Insert', collection: 't', record: { n: 2 } },
      ],
    });
    await callStoredFunction(env(), ok, {});
    expect(
      await db.session(undefined).find('t', { sort: [], skip: 0, bypassCache: false, bypassRipple: false }),
    ).to.have.length(2);
    const bad = define({
      label: 'tx-bad',
      transaction_config: { enabled: true, auto_rollback: true },
      functions: [
        { type: 'Insert', collection: 't', record: { n: 3 } },
        { type: 'Insert', collection: 't', record: { n: '{{missing}}' } },
      ],
    });
    await expectRejected(callStoredFunction(env(), bad, {}), /has no value/);
    expect(
      await db.session(undefined).find('t', { sort: [], skip: 0, bypassCache: false, bypassRipple: false }),
    ).to.have.length(2);
    expect(db.transactions.list()).to.deep.equal([]);
  });
});

async function expectRejected(p: Promise<unknown>, pattern: RegExp): Promise<void> {
  try {
    await p;
  } catch (err) {
    expect((err as Error).message).to.match(pattern);
    return;
  }
  expect.fail('expected a rejection');
}
