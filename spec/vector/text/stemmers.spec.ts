import { expect } from 'chai';
import { STEMMING_LANGUAGES, stemmerFor, stemmingLanguage } from '../../../lib/vector/index.js';

describe('vector/stemmers', () => {
  it('stems English with Porter, so inflections share a stem', () => {
    const stem = stemmerFor('english')!;
    expect(['running', 'runs', 'run'].map(stem)).to.deep.equal(['run', 'run', 'run']);
    expect(stem('connection')).to.equal(stem('connected'));
  });

  it('accepts language names in any case and ISO 639-1 codes', () => {
    expect(stemmingLanguage('English')).to.equal('english');
    expect(stemmingLanguage('de')).to.equal('german');
    expect(stemmerFor('fr')!('chevaux')).to.equal(stemmerFor('french')!('cheval'));
    expect(stemmerFor('es')!('canciones')).to.equal(stemmerFor('spanish')!('canción'));
  });

  it('has no stemmer for an unknown language, the documented fallback', () => {
    expect(stemmingLanguage('klingon')).to.equal(undefined);
    expect(stemmerFor('klingon')).to.equal(undefined);
  });

  it('loads a working stemmer for every listed language', () => {
    for (const language of STEMMING_LANGUAGES) {
      const stem = stemmerFor(language);
      expect(stem, language).to.be.a('function');
      expect(stem!('testing'), language).to.be.a('string').and.not.equal('');
    }
  });
});
