import { expect } from 'chai';
import { tokenize } from '../../../lib/vector/index.js';
import { MAX_TOKEN_LENGTH } from '../../../lib/vector/text/tokenize.js';

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
});
