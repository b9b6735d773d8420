import { expect } from 'chai';
import { Database, ManualClock, Tagged } from '../../../lib/engine/index.js';
import { removeDir } from '../../helpers/temp-dir.js';
import { FunctionHarness, rejection } from '../../helpers/function-harness.js';

describe('functions: key-value steps (KvGet, KvSet, KvDelete, KvExists, KvQuery)', () => {
  let h: FunctionHarness;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock(Date.UTC(2026, 5, 1));
    h = await FunctionHarness.open({ clock });
  });
  afterEach(async () => {
    await h.close();
  });

  describe('KvGet', () => {
    it('makes the working records one record {value} on a hit, keeping the stored type, and {value: null} on a miss', async () => {
      await h.db.kv.set('user:1', { name: 'Ann', total: { type: 'Decimal', value: '19.99' } });
      const hit = await h.run(
        [
          { type: 'FindAll', collection: 'none' },
          { type: 'KvGet', key: 'user:{{id}}' },
        ],
        { id: 1 },
      );
      expect(hit.records).to.have.length(1);
      const value = hit.records[0]!.value as Record<string, unknown>;
      expect(value.name).to.equal('Ann');
      expect(value.total).to.deep.equal(new Tagged('Decimal', '19.99'));
      expect((await h.run([{ type: 'KvGet', key: 'user:2' }])).records).to.deep.equal([{ value: null }]);
    });

    it('answers null once the TTL has passed on the engine clock', async () => {
      await h.db.kv.set('s', 'v', 10);
      expect((await h.run([{ type: 'KvGet', key: 's' }])).records).to.deep.equal([{ value: 'v' }]);
      clock.advance(10_000);
      expect((await h.run([{ type: 'KvGet', key: 's' }])).records).to.deep.equal([{ value: null }]);
    });

    it('resolves the key against the first working record', async () => {
      await h.db.kv.set('k:b', 2);
      await h.db.session(undefined).insert('items', { id: 'one', k: 'b' });
      expect(
        (
          await h.run([
            { type: 'FindAll', collection: 'items' },
            { type: 'KvGet', key: 'k:{{k}}' },
          ])
        ).records,
      ).to.deep.equal([{ value: 2 }]);
    });
  });

  describe('KvSet', () => {
    it('stores the value with its JSON type (exact placeholder, typed wrapper) and passes the working records through', async () => {
      await h.db.session(undefined).insert('items', { id: 'a', n: 1 });
      const r = await h.run(
        [
          { type: 'FindAll', collection: 'items' },
          { type: 'KvSet', key: 'doc', value: '{{doc}}' },
          { type: 'KvSet', key: 'price', value: { type: 'Decimal', value: '{{price}}' } },
        ],
        { doc: { a: [1, 2], b: true }, price: '9.50' },
      );
      expect(r.records.map((x) => x.id)).to.deep.equal(['a']);
      expect(h.db.kv.get('doc')).to.deep.equal({ a: [1, 2], b: true });
      expect(h.db.kv.get('price')).to.deep.equal(new Tagged('Decimal', '9.50'));
    });

    it('takes ttl as seconds or a duration string, on the engine clock', async () => {
      await h.run(
        [
          { type: 'KvSet', key: 'a', value: 1, ttl: 60 },
          { type: 'KvSet', key: 'b', value: 2, ttl: '{{ttl}}' },
        ],
        { ttl: '2m' },
      );
      clock.advance(61_000);
      expect(h.db.kv.entry('a')).to.equal(undefined);
      expect(h.db.kv.get('b')).to.equal(2);
      clock.advance(60_000);
      expect(h.db.kv.entry('b')).to.equal(undefined);
    });

    it('survives a restart (durable through the log)', async () => {
      await h.run([{ type: 'KvSet', key: 'durable', value: { x: 1 }, ttl: 60 }]);
      const dir = h.dir;
      await h.db.close();
      h = await FunctionHarness.open({ clock });
      const reopened = await Database.open({ dataDir: dir, settings: { durability: 'none' }, clock });
      try {
        expect(reopened.kv.get('durable')).to.deep.equal({ x: 1 });
        expect(reopened.kv.entry('durable')!.expiresAt).to.equal(clock.now() + 60_000);
      } finally {
        await reopened.close();
        removeDir(dir);
      }
    });

    it('refuses a bad ttl, a bad key and a prototype member in the value with a 400, storing nothing', async () => {
      const badTtl = await rejection(h.run([{ type: 'KvSet', key: 'k', value: 1, ttl: 'soon' }]));
      expect(badTtl).to.include({ type: 'KvSet', index: 0, status: 400 });
      expect(badTtl.message).to.match(/Invalid ttl/);
      const badKey = await rejection(h.run([{ type: 'KvSet', key: '{{k}}', value: 1 }], { k: 'a\u0001b' }));
      expect(badKey).to.include({ type: 'KvSet', status: 400 });
      expect(badKey.message).to.match(/control characters/);
      const long = await rejection(h.run([{ type: 'KvSet', key: '{{k}}', value: 1 }], { k: 'x'.repeat(1025) }));
      expect(long).to.include({ status: 400 });
      const hostile = await rejection(
        h.run([{ type: 'KvSet', key: 'h', value: '{{v}}' }], { v: JSON.parse('{"__proto__": {"polluted": true}}') }),
      );
      expect(hostile).to.include({ type: 'KvSet', status: 400 });
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
      expect(await h.db.kv.find(undefined, true)).to.deep.equal([]);
    });

    it('checks a literal key at save', () => {
      expect(() => h.define({ label: 'k1', functions: [{ type: 'KvGet', key: 'a\u0001b' }] })).to.throw(
        'functions[0].key: KV key must not contain control characters',
      );
      expect(() => h.define({ label: 'k2', functions: [{ type: 'KvExists', key: 'x'.repeat(1025) }] })).to.throw(
        'functions[0].key: KV key longer than 1024 characters',
      );
      expect(() => h.define({ label: 'k3', functions: [{ type: 'LockAcquire', key: 7, ttl_secs: 1 }] })).to.throw(
        'functions[0].key: must be a non-empty string',
      );
    });

    it('needs key and value at save', () => {
      expect(() => h.define({ label: 'a', functions: [{ type: 'KvSet', value: 1 }] })).to.throw(
        "functions[0]: missing required member 'key'",
      );
      expect(() => h.define({ label: 'b', functions: [{ type: 'KvSet', key: 'k' }] })).to.throw(
        "functions[0]: missing required member 'value'",
      );
    });
  });

  describe('KvDelete', () => {
    it('deletes the key, passes the records through, and reports in output_field when asked', async () => {
      await h.db.kv.set('gone', 1);
      expect((await h.run([{ type: 'KvDelete', key: 'gone' }])).records).to.deep.equal([]);
      expect(h.db.kv.entry('gone')).to.equal(undefined);
      await h.db.kv.set('gone', 1);
      const r = await h.run([
        { type: 'KvDelete', key: 'gone', output_field: 'del' },
        { type: 'KvDelete', key: 'gone', output_field: 'again' },
      ]);
      expect(r.records).to.deep.equal([{ del: true, again: false }]);
    });
  });

  describe('KvExists', () => {
    it('writes a boolean to output_field (default exists), one record when there were none', async () => {
      await h.db.kv.set('here', 0);
      expect((await h.run([{ type: 'KvExists', key: 'here' }])).records).to.deep.equal([{ exists: true }]);
      expect((await h.run([{ type: 'KvExists', key: 'nowhere', output_field: 'found.it' }])).records).to.deep.equal([
        { found: { it: false } },
      ]);
    });

    it('answers for each working record with its own key, and false for an expired key', async () => {
      await h.db.kv.set('seen:a', true);
      await h.db.kv.set('seen:c', true, 5);
      clock.advance(5_000);
      const s = h.db.session(undefined);
      for (const id of ['a', 'b', 'c']) await s.insert('items', { id });
      const r = await h.run([
        { type: 'FindAll', collection: 'items' },
        { type: 'KvExists', key: 'seen:{{id}}', output_field: 'seen' },
      ]);
      expect(Object.fromEntries(r.records.map((x) => [x.id, x.seen]))).to.deep.equal({ a: true, b: false, c: false });
    });

    it('refuses a prototype key as output_field at save', () => {
      expect(() =>
        h.define({ label: 'p', functions: [{ type: 'KvExists', key: 'k', output_field: '__proto__' }] }),
      ).to.throw(/output_field: forbidden field name '__proto__'/);
      expect(() =>
        h.define({ label: 'q', functions: [{ type: 'KvExists', key: 'k', output_field: 'a.constructor' }] }),
      ).to.throw(/forbidden field name 'constructor'/);
    });
  });

  describe('KvQuery', () => {
    beforeEach(async () => {
      for (const k of ['cache:product:1', 'cache:product:2', 'cache:user:1', 'config:app:theme', 'xcache:product:9'])
        await h.db.kv.set(k, k.length);
    });
    const keys = (records: Record<string, unknown>[]) => records.map((r) => r.key);

    it('makes the matching entries the working records, in key order, with an unanchored regular expression', async () => {
      const r = await h.run([{ type: 'KvQuery', pattern: 'cache:product:.*' }]);
      expect(keys(r.records)).to.deep.equal(['cache:product:1', 'cache:product:2', 'xcache:product:9']);
      expect(r.records[0]).to.deep.equal({ key: 'cache:product:1', value: 15 });
      expect(keys((await h.run([{ type: 'KvQuery', pattern: '^cache:(product|user):1$' }])).records)).to.deep.equal([
        'cache:product:1',
        'cache:user:1',
      ]);
      // a regular expression, not a glob: `config:app:*` means "config:app" then any number of ':'
      expect(keys((await h.run([{ type: 'KvQuery', pattern: 'config:app:*' }])).records)).to.deep.equal([
        'config:app:theme',
      ]);
      expect(keys((await h.run([{ type: 'KvQuery', pattern: 'p:*$' }])).records)).to.deep.equal([]);
    });

    it('lists every live key without a pattern, and expired ones with include_expired', async () => {
      await h.db.kv.set('short', 1, 1);
      clock.advance(1_000);
      expect((await h.run([{ type: 'KvQuery' }])).records).to.have.length(5);
      expect((await h.run([{ type: 'KvQuery', pattern: '' }])).records).to.have.length(5);
      const all = await h.run([{ type: 'KvQuery', pattern: 'short', include_expired: true }]);
      expect(all.records).to.have.length(1);
      expect(all.records[0]).to.include({ key: 'short', value: 1, expires_at: new Date(clock.now()).toISOString() });
    });

    it('resolves a pattern with placeholders per call', async () => {
      expect(
        keys((await h.run([{ type: 'KvQuery', pattern: '^cache:{{kind}}:' }], { kind: 'user' })).records),
      ).to.deep.equal(['cache:user:1']);
      const bad = await rejection(h.run([{ type: 'KvQuery', pattern: '{{p}}' }], { p: '(a' }));
      expect(bad).to.include({ type: 'KvQuery', status: 400 });
    });

    it('refuses at save a pattern that is not a regular expression or cannot run in linear time', () => {
      expect(() => h.define({ label: 'a', functions: [{ type: 'KvQuery', pattern: '(unclosed' }] })).to.throw(
        /^functions\[0\]\.pattern: /,
      );
      expect(() => h.define({ label: 'b', functions: [{ type: 'KvQuery', pattern: '(a)\\1' }] })).to.throw(
        /^functions\[0\]\.pattern: /,
      );
      expect(() => h.define({ label: 'c', functions: [{ type: 'KvQuery', pattern: 42 }] })).to.throw(
        'functions[0].pattern: must be a string (a regular expression)',
      );
      expect(() => h.define({ label: 'd', functions: [{ type: 'KvQuery', include_expired: 'yes' }] })).to.throw(
        'functions[0].include_expired: must be a boolean',
      );
    });

    it('runs a catastrophic-backtracking pattern in linear time', async () => {
      await h.db.kv.set('a'.repeat(1000) + '!', 1);
      const started = performance.now();
      const r = await h.run([{ type: 'KvQuery', pattern: '^(a+)+$' }]);
      expect(r.records).to.deep.equal([]);
      expect(performance.now() - started).to.be.below(1000);
    });
  });

  it('keeps every KV step out of a transactional function (refused at save)', () => {
    const tx = { enabled: true, auto_rollback: true, isolation_level: 'ReadCommitted' };
    for (const s of [
      { type: 'KvGet', key: 'k' },
      { type: 'KvSet', key: 'k', value: 1 },
      { type: 'KvDelete', key: 'k' },
      { type: 'KvExists', key: 'k' },
      { type: 'KvQuery' },
    ]) {
      expect(() => h.define({ label: `tx_${s.type}`, transaction_config: tx, functions: [s] })).to.throw(
        `step type '${s.type}' cannot take part in a transactional function`,
      );
    }
  });
});
