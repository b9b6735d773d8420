import { expect } from 'chai';
import { FunctionHarness, rejection } from '../../../helpers/function-harness.js';

/** RFC 4648 section 10 test vectors. */
const RFC4648: readonly [string, string, string][] = [
  ['', '', ''],
  ['f', 'Zg==', '66'],
  ['fo', 'Zm8=', '666f'],
  ['foo', 'Zm9v', '666f6f'],
  ['foob', 'Zm9vYg==', '666f6f62'],
  ['fooba', 'Zm9vYmE=', '666f6f6261'],
  ['foobar', 'Zm9vYmFy', '666f6f626172'],
];

describe('functions: encoding steps', () => {
  let h: FunctionHarness;
  beforeEach(async () => {
    h = await FunctionHarness.open();
  });
  afterEach(async () => {
    await h.close();
  });

  const one = async (step: Record<string, unknown>, params: Record<string, unknown> = {}) =>
    (await h.run([step], params)).records[0]!.out;

  it('Base64Encode and HexEncode give the RFC 4648 test vectors; the decoders invert them', async () => {
    for (const [text, b64, hex] of RFC4648) {
      expect(await one({ type: 'Base64Encode', input: '{{t}}', output_field: 'out' }, { t: text })).to.equal(b64);
      expect(await one({ type: 'HexEncode', input: '{{t}}', output_field: 'out' }, { t: text })).to.equal(hex);
      expect(await one({ type: 'Base64Decode', input: '{{t}}', output_field: 'out' }, { t: b64 })).to.equal(text);
      expect(await one({ type: 'HexDecode', input: '{{t}}', output_field: 'out' }, { t: hex.toUpperCase() })).to.equal(
        text,
      );
    }
  });

  it('encodes UTF-8 text and binary fields', async () => {
    expect(await one({ type: 'Base64Encode', input: 'héllo ✓', output_field: 'out' })).to.equal(
      Buffer.from('héllo ✓').toString('base64'),
    );
    await h.db
      .session(undefined)
      .insert('files', { data: { type: 'Binary', value: Buffer.from([0, 255, 16]).toString('base64') } });
    const r = await h.run([
      { type: 'FindAll', collection: 'files' },
      { type: 'HexEncode', input: '{{data}}', output_field: 'hex' },
    ]);
    expect(r.records[0]!.hex).to.equal('00ff10');
  });

  it('url_safe uses - and _ without padding, and decodes either padding', async () => {
    const bytes = '\u00fb\u00ff\u00bf'; // UTF-8 c3bb c3bf c2bf: base64 w7vDv8K/
    expect(await one({ type: 'Base64Encode', input: bytes, output_field: 'out' })).to.equal('w7vDv8K/');
    expect(await one({ type: 'Base64Encode', input: bytes, output_field: 'out', url_safe: true })).to.equal('w7vDv8K_');
    expect(await one({ type: 'Base64Decode', input: 'w7vDv8K_', output_field: 'out', url_safe: true })).to.equal(bytes);
    expect(await one({ type: 'Base64Decode', input: 'Zm8', output_field: 'out', url_safe: true })).to.equal('fo');
    expect(await one({ type: 'Base64Decode', input: 'Zm8=', output_field: 'out', url_safe: true })).to.equal('fo');
  });

  it('decoding fails closed: bad alphabet, whitespace, padding, length, unused bits, non-UTF-8', async () => {
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ type: 'Base64Decode', input: 'Zm9v!' }, /outside the alphabet/],
      [{ type: 'Base64Decode', input: 'Zm 9v' }, /outside the alphabet/],
      [{ type: 'Base64Decode', input: 'w7vDv8K_' }, /outside the alphabet/],
      [{ type: 'Base64Decode', input: 'w7vDv8K/', url_safe: true }, /outside the alphabet/],
      [{ type: 'Base64Decode', input: 'Zm9vY' }, /wrong length or padding/],
      [{ type: 'Base64Decode', input: 'Zm9v=' }, /wrong length or padding/],
      [{ type: 'Base64Decode', input: 'Zg=' }, /wrong length or padding/],
      [{ type: 'Base64Decode', input: 'Zh==' }, /unused bits/],
      [{ type: 'Base64Decode', input: '/w==' }, /not UTF-8/],
      [{ type: 'HexDecode', input: 'abc' }, /not valid hex/],
      [{ type: 'HexDecode', input: 'zz' }, /not valid hex/],
      [{ type: 'HexDecode', input: 'c328' }, /not UTF-8/],
    ];
    for (const [step, message] of bad) {
      const err = await rejection(h.run([{ ...step, output_field: 'out' }]));
      expect(err.status, JSON.stringify(step)).to.equal(400);
      expect(err.message, JSON.stringify(step)).to.match(message);
      expect(err).to.include({ type: step.type, index: 0 });
    }
  });

  it('Slugify lowercases, drops accents and joins words with single dashes', async () => {
    const cases: [string, string][] = [
      ['Hello, World!', 'hello-world'],
      ['  Crème Brûlée  à la carte ', 'creme-brulee-a-la-carte'],
      ['Straße & Ærø -- 2024', 'strasse-aero-2024'],
      ['---', ''],
      ['日本語', ''],
      ['ﬁ ligature ①', 'fi-ligature-1'],
    ];
    for (const [input, slug] of cases)
      expect(await one({ type: 'Slugify', input: '{{t}}', output_field: 'out' }, { t: input })).to.equal(slug);
  });

  it('writes output_field on every working record, or makes one record when there are none', async () => {
    const s = h.db.session(undefined);
    await s.insert('posts', { title: 'First Post' });
    await s.insert('posts', { title: 'Second Post' });
    const r = await h.run([
      { type: 'FindAll', collection: 'posts' },
      { type: 'Slugify', input: '{{title}}', output_field: 'meta.slug' },
    ]);
    expect(r.records.map((x) => (x.meta as Record<string, unknown>).slug).sort()).to.deep.equal([
      'first-post',
      'second-post',
    ]);
    expect(r.records.every((x) => typeof x.title === 'string' && typeof x.id === 'string')).to.equal(true);
    const empty = await h.run([{ type: 'HexEncode', input: 'a', output_field: 'out' }]);
    expect(empty.records).to.deep.equal([{ out: '61' }]);
  });

  it('refuses bad members at save, naming the path', () => {
    expect(() => h.define({ label: 'a', functions: [{ type: 'HexEncode', input: 'x' }] })).to.throw(
      "functions[0]: missing required member 'output_field'",
    );
    expect(() =>
      h.define({ label: 'b', functions: [{ type: 'Slugify', input: 'x', output_field: '__proto__' }] }),
    ).to.throw(/forbidden field name '__proto__'/);
    expect(() =>
      h.define({ label: 'c', functions: [{ type: 'Base64Encode', input: 'x', output_field: 'o', url_safe: 'yes' }] }),
    ).to.throw('functions[0].url_safe: must be a boolean');
  });

  it('refuses an input that is not text', async () => {
    const err = await rejection(h.run([{ type: 'Slugify', input: '{{n}}', output_field: 'o' }], { n: 5 }));
    expect(err.message).to.match(/'input' must resolve to a string/);
  });
});
