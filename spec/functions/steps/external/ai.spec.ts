/**
 * The Chat and Embed steps in process: through lib/chat's port over the
 * providers the settings configure (none here, so the offline `local`
 * provider and the offline embedder), the port's wall-time bound, save-time
 * checks, and the default port of an engine without the chat layer. The
 * HTTP form, against a fake OpenAI, is spec/http/functions-ai.spec.ts.
 */
import { expect } from 'chai';
import { embedderFor, functionAi, LocalProvider, SettingsProviderDirectory } from '../../../../lib/chat/index.js';
import { Tagged } from '../../../../lib/engine/index.js';
import { ProviderFailed, StepFailed } from '../../../../lib/errors.js';
import type { FunctionAi } from '../../../../lib/functions/index.js';
import { OfflineEmbedder } from '../../../../lib/vector/index.js';
import { FunctionHarness, rejection } from '../../../helpers/function-harness.js';

const offline = new OfflineEmbedder();
const vectorOf = async (text: string) => new Tagged('Vector', Object.freeze((await offline.embed([text]))[0]!));

describe('functions: Chat step', () => {
  let h: FunctionHarness;
  beforeEach(async () => {
    h = await FunctionHarness.open();
    h.ai = functionAi(new SettingsProviderDirectory(() => h.db.settings()), (model) =>
      embedderFor(h.db.settings(), model),
    );
  });
  afterEach(async () => {
    await h.close();
  });

  it('answers with the offline local provider when none is configured: one record {response, tokens_used}', async () => {
    const r = await h.run(
      [
        { type: 'Insert', collection: 'notes', record: { text: 'x' } },
        {
          type: 'Chat',
          messages: [
            { role: 'system', content: 'Context:\n- the sky is {{colour}}' },
            { role: 'user', content: 'What colour is the {{thing}}?' },
          ],
        },
      ],
      { colour: 'blue', thing: 'sky' },
    );
    expect(r.records).to.have.length(1);
    expect(r.records[0]).to.deep.equal({
      response: 'Question: What colour is the sky?\nContext:\n- the sky is blue',
      // local tokens are words: 11 of the prompt, 12 of the answer
      tokens_used: 23,
    });
  });

  it('reads placeholders from the first working record, takes the whole list from one parameter, and passes max_tokens', async () => {
    await h.run([{ type: 'Insert', collection: 'q', record: { question: 'Is it raining?' } }]);
    const fromRecord = await h.run([
      { type: 'FindAll', collection: 'q' },
      {
        type: 'Chat',
        messages: [{ role: 'user', content: '{{question}}' }],
        max_tokens: 2,
        temperature: 0.2,
        provider: 'local',
        model: 'eddydb-local',
      },
    ]);
    expect(fromRecord.records).to.deep.equal([{ response: 'Question: Is', tokens_used: 5 }]);
    const whole = await h.run([{ type: 'Chat', messages: '{{msgs}}', max_tokens: '{{max}}' }], {
      msgs: [{ role: 'user', content: 'hi' }],
      max: 1,
    });
    expect(whole.records[0]!.response).to.equal('Question:');
  });

  it('refuses bad members at save, naming them', async () => {
    const define = (extra: Record<string, unknown>) => () =>
      h.define({
        label: `c${Math.random()}`,
        functions: [{ type: 'Chat', messages: [{ role: 'user', content: 'hi' }], ...extra }],
      });
    expect(() => h.define({ label: 'none', functions: [{ type: 'Chat' }] })).to.throw(
      /functions\[0\]: missing required member 'messages'/,
    );
    expect(define({ messages: [] })).to.throw(/messages: 'messages' must be a list of 1 to/);
    expect(define({ messages: [{ role: 'robot', content: 'x' }] })).to.throw(
      /'messages\[0\]\.role' must be one of system, user, assistant/,
    );
    expect(
      define({
        messages: [
          { role: 'user', content: '{{q}}' },
          { role: 'tool', content: '{{q}}' },
        ],
      }),
    ).to.throw(/messages\[1\]\.role/);
    expect(define({ messages: [{ role: 'user' }] })).to.throw(/'messages\[0\]\.content' must be text/);
    expect(define({ messages: { role: 'user', content: 'x' } })).to.throw(/must be a list/);
    expect(define({ temperature: 3 })).to.throw(
      /functions\[0\]\.temperature: 'temperature' must be a number between 0 and 2/,
    );
    expect(define({ max_tokens: 0 })).to.throw(/max_tokens/);
    expect(define({ max_tokens: 1.5 })).to.throw(/max_tokens/);
    expect(define({ provider: 5 })).to.throw(/provider/);
    expect(() =>
      h.define({
        label: 'tx',
        transaction_config: { enabled: true, auto_rollback: true },
        functions: [{ type: 'Chat', messages: [{ role: 'user', content: 'x' }] }],
      }),
    ).to.throw(/cannot take part/);
    // placeholders whose values are checked when the step runs
    expect(define({ messages: [{ role: '{{role}}', content: '{{q}}' }], temperature: '{{t}}' })).not.to.throw();
  });

  it('refuses bad values at call time as a 400 step failure', async () => {
    const bad = await rejection(
      h.run([{ type: 'Chat', messages: [{ role: '{{role}}', content: 'x' }] }], { role: 'wizard' }),
    );
    expect(bad).to.be.instanceOf(StepFailed);
    expect(bad).to.include({ status: 400, index: 0, type: 'Chat' });
    expect(bad.message).to.match(/role' must be one of/);
    const temp = await rejection(
      h.run([{ type: 'Chat', messages: [{ role: 'user', content: 'x' }], temperature: '{{t}}' }], { t: 'hot' }),
    );
    expect(temp.message).to.match(/'temperature' must be a number/);
    const list = await rejection(h.run([{ type: 'Chat', messages: '{{m}}' }], { m: 'not a list' }));
    expect(list.message).to.match(/'messages' must be a list/);
  });

  it('fails the step with the classified failure as its cause for an unconfigured provider', async () => {
    const err = await rejection(
      h.run([{ type: 'Chat', messages: [{ role: 'user', content: 'x' }], provider: 'anthropic' }]),
    );
    expect(err).to.be.instanceOf(StepFailed);
    expect(err.status).to.equal(400);
    expect(err.cause).to.be.instanceOf(ProviderFailed);
    expect(err.cause).to.include({ kind: 'provider_not_configured', provider: 'anthropic', providerStatus: null });
  });

  it('ends the call at its time limit, aborting a provider that does not answer, and TryCatch does not swallow it', async () => {
    let aborted = false;
    const silent: FunctionAi = {
      complete: (_req, signal) =>
        new Promise((_, reject) =>
          signal?.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          }),
        ),
      embed: () => new Promise(() => {}), // ignores the abort: the call stops waiting anyway
    };
    h.ai = silent;
    h.bounds = { maxSteps: 1000, maxRecords: 1000, maxMs: 80 };
    const chat = await rejection(
      h.run([
        {
          type: 'TryCatch',
          try_functions: [{ type: 'Chat', messages: [{ role: 'user', content: 'x' }] }],
          catch_functions: [],
        },
      ]),
    );
    expect(chat.message).to.match(/time limit of 80 ms/);
    expect(aborted).to.equal(true);
    const started = Date.now();
    const embed = await rejection(h.run([{ type: 'Embed', texts: ['a'] }]));
    expect(embed.message).to.match(/time limit/);
    expect(Date.now() - started).to.be.lessThan(2000);
  });

  it('without a port (no chat layer) has no provider', async () => {
    h.ai = undefined;
    const err = await rejection(h.run([{ type: 'Chat', messages: [{ role: 'user', content: 'x' }] }]));
    expect(err.cause).to.be.instanceOf(ProviderFailed);
    expect(err.cause).to.include({ kind: 'provider_not_configured', provider: 'local' });
  });

  it("goes to the directory's first configured provider when none is named, else to the one named (a placeholder too)", async () => {
    const seen: string[] = [];
    const local = new LocalProvider();
    h.ai = functionAi(
      {
        configured: () => ['local'],
        get: (id) => {
          seen.push(id);
          return local;
        },
      },
      () => offline,
    );
    await h.run([{ type: 'Chat', messages: [{ role: 'user', content: 'x' }] }]);
    await h.run([{ type: 'Chat', messages: [{ role: 'user', content: 'x' }], provider: '{{p}}' }], { p: 'openai' });
    expect(seen).to.deep.equal(['local', 'openai']);
  });
});

describe('functions: Embed step', () => {
  let h: FunctionHarness;
  beforeEach(async () => {
    h = await FunctionHarness.open();
    h.ai = functionAi(new SettingsProviderDirectory(() => h.db.settings()), (model) =>
      embedderFor(h.db.settings(), model),
    );
  });
  afterEach(async () => {
    await h.close();
  });

  it("writes each working record's vector at output_field, as a Vector value, with the offline embedder", async () => {
    await h.run([
      {
        type: 'BatchInsert',
        collection: 'docs',
        records: [
          { title: 'a', body: { text: 'the quick brown fox' } },
          { title: 'b', body: { text: null } },
          { title: 'c', body: { text: 'lazy dogs sleep' } },
        ],
      },
    ]);
    const r = await h.run([
      { type: 'FindAll', collection: 'docs' },
      { type: 'Sort', sort: [{ field: 'title', ascending: true }] },
      { type: 'Project', fields: ['title', 'body'] },
      { type: 'Embed', input_field: 'body.text', output_field: 'meta.vec' },
    ]);
    expect(r.records.map((rec) => rec.title)).to.deep.equal(['a', 'b', 'c']);
    expect(r.records[0]!.meta).to.deep.equal({ vec: await vectorOf('the quick brown fox') });
    expect(r.records[1]).not.to.have.property('meta'); // a null text passes through
    expect(r.records[2]!.meta).to.deep.equal({ vec: await vectorOf('lazy dogs sleep') });
  });

  it('with no working records embeds a parameter into one record (default output_field embedding)', async () => {
    const r = await h.run([{ type: 'Embed', input_field: 'query' }], { query: 'hello world' });
    expect(r.records).to.deep.equal([{ embedding: await vectorOf('hello world') }]);
    const missing = await rejection(h.run([{ type: 'Embed', input_field: 'query' }], {}));
    expect(missing.status).to.equal(400);
  });

  it('hands its Vector on: an Insert after it stores the vector as written', async () => {
    const r = await h.run(
      [
        { type: 'Embed', input_field: 'text' },
        { type: 'Insert', collection: 'vecs', record: { text: '{{text}}', embedding: '{{embedding}}' } },
      ],
      { text: 'blue sky' },
    );
    expect(r.records).to.have.length(1);
    const stored = h.records('vecs');
    expect(stored).to.have.length(1);
    expect(stored[0]!.embedding).to.deep.equal(await vectorOf('blue sky'));
  });

  it("takes the Go client's texts form: one record {text, embedding} per text", async () => {
    const r = await h.run(
      [
        { type: 'FindAll', collection: 'none' },
        { type: 'Embed', texts: '{{texts}}' },
      ],
      { texts: ['one', 'two'] },
    );
    expect(r.records).to.deep.equal([
      { text: 'one', embedding: await vectorOf('one') },
      { text: 'two', embedding: await vectorOf('two') },
    ]);
    const renamed = await h.run([{ type: 'Embed', texts: ['x'], output_field: 'v', model: 'eddydb-offline-hash-v1' }]);
    expect(Object.keys(renamed.records[0]!)).to.deep.equal(['text', 'v']);
  });

  it('refuses bad members at save and bad values at call time', async () => {
    expect(() => h.define({ label: 'a', functions: [{ type: 'Embed' }] })).to.throw(/input_field/);
    expect(() => h.define({ label: 'b', functions: [{ type: 'Embed', input_field: '__proto__' }] })).to.throw(
      /input_field/,
    );
    expect(() =>
      h.define({ label: 'c', functions: [{ type: 'Embed', input_field: 't', output_field: 'a.constructor' }] }),
    ).to.throw(/output_field/);
    expect(() => h.define({ label: 'd', functions: [{ type: 'Embed', input_field: 't', texts: ['x'] }] })).to.throw(
      /either/,
    );
    expect(() => h.define({ label: 'e', functions: [{ type: 'Embed', texts: [1] }] })).to.throw(
      /'texts\[0\]' must be a string/,
    );
    expect(() => h.define({ label: 'f', functions: [{ type: 'Embed', texts: 'x' }] })).to.throw(
      /'texts' must be a list/,
    );
    expect(() => h.define({ label: 'g', functions: [{ type: 'Embed', input_field: 't', model: 7 }] })).to.throw(
      /model/,
    );
    expect(() =>
      h.define({
        label: 'tx',
        transaction_config: { enabled: true, auto_rollback: true },
        functions: [{ type: 'Embed', input_field: 't' }],
      }),
    ).to.throw(/cannot take part/);
    await h.run([{ type: 'Insert', collection: 'n', record: { t: 5 } }]);
    const notText = await rejection(
      h.run([
        { type: 'FindAll', collection: 'n' },
        { type: 'Embed', input_field: 't' },
      ]),
    );
    expect(notText).to.include({ status: 400, type: 'Embed', index: 1 });
    expect(notText.message).to.match(/'t' must hold text/);
    const texts = await rejection(h.run([{ type: 'Embed', texts: '{{t}}' }], { t: [{}] }));
    expect(texts.message).to.match(/'texts\[0\]' must be a string/);
  });

  it('without a port (no chat layer) embeds offline, and refuses a model only a provider has', async () => {
    h.ai = undefined;
    const r = await h.run([{ type: 'Embed', texts: ['x'] }]);
    expect(r.records[0]!.embedding).to.deep.equal(await vectorOf('x'));
    const err = await rejection(h.run([{ type: 'Embed', texts: ['x'], model: 'text-embedding-3-small' }]));
    expect(err.cause).to.be.instanceOf(ProviderFailed);
  });
});
