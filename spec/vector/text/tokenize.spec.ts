import { expect } from 'chai';
import { tokenize } from '../../../lib/vector/index.js';
import { MAX_TOKEN_LENGTH } from '../../../lib/vector/text/tokenize.js';
import { mulberry32 } from '../../helpers/seeded-random.js';

/** The definition: runs of letters, marks and digits of the NFC text, cut at MAX_TOKEN_LENGTH. */
const byRegex = (text: string): string[] =>
  (text.normalize('NFC').match(/[\p{L}\p{M}\p{N}]+/gu) ?? []).map((t) => t.slice(0, MAX_TOKEN_LENGTH));

describe('vector/tokenize', () => {
  it('splits on punctuation and whitespace and keeps case', () => {
    expect(tokenize("Hello, World! It's 2024-05-01.")).to.deep.equal(['Hello', 'World', 'It', 's', '2024', '05', '01']);
  });

  it('keeps letters of every script and combining marks together', () => {
    expect(tokenize('Ünïcödé façade — Привет мир')).to.deep.equal(['Ünïcödé', 'façade', 'Привет', 'мир']);
    expect(tokenize('cafe\u0301')).to.deep.equal(['café']);
  });

  it('cuts very long tokens', () => {
    expect(tokenize('x'.repeat(500))[0]).to.have.length(MAX_TOKEN_LENGTH);
    expect(tokenize('  ')).to.deep.equal([]);
  });

  it('splits ASCII text exactly as the Unicode definition does', () => {
    const random = mulberry32(7);
    for (let i = 0; i < 2000; i++) {
      const length = Math.floor(random() * 120);
      const text = Array.from({ length }, () =>
        String.fromCharCode(random() < 0.7 ? 97 + Math.floor(random() * 26) : Math.floor(random() * 128)),
      ).join('');
      expect(tokenize(text), JSON.stringify(text)).to.deep.equal(byRegex(text));
    }
    expect(tokenize(`${'a'.repeat(70)} b`)).to.deep.equal(byRegex(`${'a'.repeat(70)} b`));
  });
});
