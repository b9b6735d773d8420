import { expect } from 'chai';
import { Database } from '../../lib/engine/index.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';
import { TestServer, type Reply } from '../helpers/test-server.js';

// User patterns ran on V8's backtracking RegExp, so
// `^(a+)+$` against 30 `a` and `!` froze the server for ~21 s, and a schema
// regex of 30,000 nested groups was accepted and later turned writes into 500s.

const CATASTROPHIC = '^(a+)+$';
const EVIL_TEXT = 'a'.repeat(30) + '!';
const NESTED_30K = '('.repeat(30_000) + ')'.repeat(30_000);
/** Generous: before the fix these took tens of seconds; after, milliseconds. */
const PROMPT_MS = 2000;

const REFUSED: ReadonlyArray<[string, string, RegExp]> = [
  ['a backreference', '(a)\\1', /backreferences such as \\1 are not supported/],
  ['a lookahead', '(?=a)', /lookahead/],
  ['a lookbehind', '(?<=a)b', /lookbehind/],
  ['a pattern longer than 1,024 characters', 'a'.repeat(1025), /longer than 1024 characters/],
  ['groups nested deeper than 32', '('.repeat(33) + ')'.repeat(33), /nested deeper than 32/],
  ['30,000 nested groups', NESTED_30K, /longer than 1024 characters/],
];

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work;
  return { value, ms: Date.now() - started };
}

function expectInvalidRegex(r: Reply, field: string, why: RegExp): void {
  expect(r.status, r.text.slice(0, 300)).to.equal(400);
  expect(r.body.error).to.match(new RegExp(`^Field '${field}': invalid regex: `));
  expect(r.body.error).to.match(why);
}

describe('regression: regular expressions run in linear time', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await TestServer.start();
  });
  afterEach(async () => {
    await t.stop();
  });

  describe('KV find', () => {
    it('answers a catastrophic pattern promptly while /api/health is answered at the same time', async () => {
      await t.request('POST', `/api/kv/set/${EVIL_TEXT}`, { value: 1 });
      await t.request('POST', '/api/kv/set/aaa', { value: 2 });
      await t.adminToken();
      const [find, health] = await Promise.all([
        timed(t.request('POST', '/api/kv/find', { pattern: CATASTROPHIC })),
        timed(t.request('GET', '/api/health', undefined, { token: null })),
      ]);
      expect(find.value.status).to.equal(200);
      expect(find.value.body.map((e: { key: string }) => e.key)).to.deep.equal(['aaa']);
      expect(find.ms).to.be.below(PROMPT_MS);
      expect(health.value.status).to.equal(200);
      expect(health.ms).to.be.below(PROMPT_MS);
    });

    for (const [what, pattern, why] of REFUSED) {
      it(`answers 400 naming 'pattern' for ${what}`, async () => {
        const r = await t.request('POST', '/api/kv/find', { pattern });
        expect(r.status).to.equal(400);
        expect(r.body.error)
          .to.match(/^pattern: /)
          .and.to.match(why);
      });
    }

    it('answers 400 for a pattern that is not a string', async () => {
      const r = await t.request('POST', '/api/kv/find', { pattern: 5 });
      expect([r.status, r.body.error]).to.deep.equal([400, 'pattern: must be a string']);
    });
  });

  describe('schema regex', () => {
    it('rejects a catastrophic match on insert promptly, and accepts a matching value', async () => {
      await t.request('POST', '/api/collections/words', {
        fields: { w: { field_type: 'String', regex: CATASTROPHIC } },
      });
      const bad = await timed(t.request('POST', '/api/insert/words', { w: EVIL_TEXT }));
      expect(bad.value.status).to.equal(400);
      expect(bad.value.body.details[0]).to.include({ field: 'w', constraint: 'regex' });
      expect(bad.ms).to.be.below(PROMPT_MS);
      expect((await t.request('POST', '/api/insert/words', { w: 'aaaa' })).status).to.equal(201);
    });

    it('refuses a value too long to match against a large pattern with a 400 violation, without matching it', async () => {
      const big = '(a|b|c|d|e|f|g|h|i|j)' + '[a-j]{0,200}' + 'z';
      await t.request('POST', '/api/collections/long', { fields: { w: { field_type: 'String', regex: big } } });
      const text = 'a'.repeat(2_000_000);
      const r = await timed(t.request('POST', '/api/insert/long', { w: text }));
      expect(r.value.status).to.equal(400);
      expect(r.value.body.details[0]).to.include({ field: 'w', constraint: 'regex' });
      expect(r.value.body.details[0].message).to.match(
        /too long to check against its pattern: 2000000 characters, at most \d+/,
      );
      expect(r.ms).to.be.below(PROMPT_MS);
      expect((await t.request('POST', '/api/insert/long', { w: 'az' })).status).to.equal(201);
    });

    for (const [what, pattern, why] of REFUSED) {
      it(`refuses ${what} at save time with 400 naming the field, on every route that saves a schema`, async () => {
        const field = { field_type: 'String', regex: pattern };
        expectInvalidRegex(
          await t.request('POST', '/api/collections/people', { fields: { email: field } }),
          'email',
          why,
        );
        expect((await t.request('GET', '/api/schemas/people')).status, 'nothing created').to.equal(404);
        await t.request('POST', '/api/collections/people', { fields: { email: { field_type: 'String' } } });
        expectInvalidRegex(await t.request('PUT', '/api/schemas/people', { fields: { email: field } }), 'email', why);
        expectInvalidRegex(
          await t.request('PUT', '/api/schemas/people', { constraints: { email: { regex: pattern } } }),
          'email',
          why,
        );
        expectInvalidRegex(
          await t.request('PUT', '/api/schemas/people', { constraints: { alias: field } }),
          'alias',
          why,
        );
        expect((await t.request('GET', '/api/schemas/people')).body.fields.email.regex, 'schema unchanged').to.equal(
          null,
        );
        expect((await t.request('POST', '/api/insert/people', { email: 'x@y.z' })).status).to.equal(201);
      });
    }
  });
});

describe('regression: a stored schema regex the new rules refuse', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => removeDir(dir));

  /** Writes the schema effect an older build could have logged, bypassing save-time validation. */
  async function storeLegacySchema(regex: string): Promise<void> {
    const db = await Database.open({ dataDir: dir });
    await db.collections.create('people', {
      fields: { email: { field_type: 'String' }, name: { field_type: 'String' } },
    });
    const meta = db.collections.meta('people');
    const email = { ...meta.schema!.fields.email!, regex };
    const schema = { ...meta.schema!, fields: { ...meta.schema!.fields, email } };
    await db.write(() => ({ effects: [{ kind: 'setCollectionMeta', meta: { ...meta, schema } }], result: undefined }));
    await db.close({ snapshot: false });
  }

  it('loads, answers writes that reach the field with a 400 saying the pattern cannot be used, across restarts', async () => {
    await storeLegacySchema(NESTED_30K);
    for (let start = 0; start < 2; start++) {
      const t = await TestServer.start({ dataDir: dir });
      try {
        const r = await timed(t.request('POST', '/api/insert/people', { email: 'a@b.c' }));
        expect(r.value.status, r.value.text.slice(0, 300)).to.equal(400);
        expect(r.value.body.error).to.match(/Field 'email': pattern cannot be used: longer than 1024 characters/);
        expect(r.value.body.details[0]).to.include({ field: 'email', constraint: 'regex' });
        expect(r.ms).to.be.below(PROMPT_MS);
        expect(
          (await t.request('POST', '/api/insert/people', { name: 'no email' })).status,
          'other writes go on',
        ).to.equal(201);
        expect((await t.request('GET', '/api/schemas/people')).body.fields.email.regex, 'shown for the admin').to.equal(
          NESTED_30K,
        );
      } finally {
        await t.stop({ keepData: true });
      }
    }
  });

  it('lets the admin replace the pattern, after which writes are checked by the new one', async () => {
    await storeLegacySchema('(a)\\1');
    const t = await TestServer.start({ dataDir: dir });
    try {
      expect((await t.request('POST', '/api/insert/people', { email: 'aa' })).body.error).to.match(
        /pattern cannot be used: backreferences/,
      );
      expect(
        (await t.request('PUT', '/api/schemas/people', { constraints: { email: { regex: '@' } } })).status,
      ).to.equal(200);
      expect((await t.request('POST', '/api/insert/people', { email: 'a@b.c' })).status).to.equal(201);
      expect((await t.request('POST', '/api/insert/people', { email: 'nope' })).status).to.equal(400);
    } finally {
      await t.stop({ keepData: true });
    }
  });
});
