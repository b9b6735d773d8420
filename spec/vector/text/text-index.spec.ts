import { expect } from 'chai';
import { InvalidInput } from '../../../lib/errors.js';
import { BM25_B, BM25_K1, EXACT_BOOST, TextIndex, type TextHit } from '../../../lib/vector/index.js';
import { mulberry32 } from '../../helpers/seeded-random.js';

function indexOf(records: Record<string, Record<string, string>>): TextIndex {
  const index = new TextIndex();
  for (const [id, fields] of Object.entries(records)) index.add(id, fields);
  return index;
}

const ids = (hits: TextHit[]): string[] => hits.map((h) => h.id);

describe('vector/text-index', () => {
  describe('BM25 scoring', () => {
    const index = indexOf({
      a: { body: 'the quick brown fox jumps over the lazy dog' },
      b: { body: 'fox fox fox' },
      c: { body: 'a lazy afternoon' },
      d: { body: 'nothing relevant here at all' },
    });

    it('scores a single word exactly as Okapi BM25 with k1 1.2 and b 0.75', () => {
      const lengths = { a: 9, b: 3, c: 3, d: 5 };
      const average = (9 + 3 + 3 + 5) / 4;
      const idf = Math.log(1 + (4 - 2 + 0.5) / (2 + 0.5)); // "fox" is in 2 of 4 records
      const bm25 = (tf: number, length: number): number =>
        (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / average));
      const hits = index.search('fox', { stemming: false });
      expect(ids(hits)).to.deep.equal(['b', 'a']);
      expect(hits[0]!.score).to.be.closeTo(bm25(3, lengths.b), 1e-12);
      expect(hits[1]!.score).to.be.closeTo(bm25(1, lengths.a), 1e-12);
    });

    it('sums over query words and ranks rarer words higher, unnormalized', () => {
      const score = (query: string, id: string): number => index.search(query).find((h) => h.id === id)!.score;
      expect(score('lazy fox', 'a')).to.be.closeTo(score('lazy', 'a') + score('fox', 'a'), 1e-12);
      const rarity = indexOf({
        rare: { body: 'common rare' },
        plain: { body: 'common other' },
        more: { body: 'common filler' },
      });
      expect(ids(rarity.search('common rare'))[0]).to.equal('rare');
      expect(score('quick', 'a')).to.be.greaterThan(score('lazy', 'a'));
      const many = indexOf({ x: { body: 'alpha beta gamma delta epsilon' }, y: { body: 'zeta' }, z: { body: 'eta' } });
      expect(many.search('alpha beta gamma delta epsilon')[0]!.score).to.be.greaterThan(1);
    });

    it('matches nothing for an empty or punctuation-only query', () => {
      expect(index.search('')).to.deep.equal([]);
      expect(index.search(' ?! ')).to.deep.equal([]);
    });
  });

  describe('stemming', () => {
    const index = indexOf({
      runs: { body: 'she runs daily' },
      run: { body: 'a long run' },
      runner: { body: 'the runner rested' },
      other: { body: 'walking slowly' },
    });

    it('finds "runs" and "run" for "running" with English stemming (the default)', () => {
      expect(ids(index.search('running')).sort()).to.deep.equal(['run', 'runs']);
      expect(ids(index.search('running', { language: 'english', stemming: true })).sort()).to.deep.equal([
        'run',
        'runs',
      ]);
    });

    it('matches only the exact word when stemming is off', () => {
      expect(ids(index.search('running', { stemming: false }))).to.deep.equal([]);
      expect(ids(index.search('runs', { stemming: false }))).to.deep.equal(['runs']);
    });

    it('ranks the exact word above a stem-only match', () => {
      expect(ids(index.search('runs'))).to.deep.equal(['runs', 'run']);
    });

    it('stems other languages by name or code, and falls back to exact words for unknown ones', () => {
      const french = indexOf({ f: { body: 'les chevaux courent' } });
      expect(ids(french.search('cheval', { language: 'french' }))).to.deep.equal(['f']);
      expect(ids(french.search('cheval', { language: 'fr' }))).to.deep.equal(['f']);
      expect(ids(french.search('cheval', { language: 'klingon' }))).to.deep.equal([]);
      expect(ids(french.search('chevaux', { language: 'klingon' }))).to.deep.equal(['f']);
    });
  });

  describe('fuzzy matching', () => {
    const index = indexOf({ db: { body: 'database indexing' }, fruit: { body: 'banana bread' } });

    it('finds a word with a typo within the edit distance', () => {
      expect(ids(index.search('databse', { fuzzy: true }))).to.deep.equal(['db']);
      expect(ids(index.search('databse', { fuzzy: true, maxEditDistance: 1 }))).to.deep.equal(['db']);
    });

    it('does not match typos when fuzzy is off, or beyond the distance', () => {
      expect(ids(index.search('databse'))).to.deep.equal([]);
      expect(ids(index.search('databse', { fuzzy: true, maxEditDistance: 0 }))).to.deep.equal([]);
      expect(ids(index.search('dtbse', { fuzzy: true, maxEditDistance: 2 }))).to.deep.equal([]);
      expect(ids(index.search('dtbse', { fuzzy: true, maxEditDistance: 3 }))).to.deep.equal(['db']);
    });

    it('scores a fuzzy match below an exact one', () => {
      const exact = index.search('database', { fuzzy: true })[0]!.score;
      expect(index.search('databse', { fuzzy: true })[0]!.score).to.be.lessThan(exact);
    });

    it('rejects a max edit distance outside 0-5', () => {
      expect(() => index.search('x', { fuzzy: true, maxEditDistance: 6 })).to.throw(InvalidInput, 'max_edit_distance');
      expect(() => index.search('x', { fuzzy: true, maxEditDistance: -1 })).to.throw(InvalidInput);
    });
  });

  describe('fields and weights', () => {
    const index = indexOf({
      inTitle: { title: 'rust programming', body: 'a book about systems' },
      inBody: { title: 'a book', body: 'learn rust programming the practical way' },
    });

    it('reports the fields each record matched in', () => {
      const hits = index.search('rust book');
      expect(hits.find((h) => h.id === 'inTitle')!.matchedFields).to.deep.equal(['title', 'body']);
      expect(hits.find((h) => h.id === 'inBody')!.matchedFields).to.deep.equal(['title', 'body']);
      expect(index.search('rust book', { fields: ['body', 'title'] })[0]!.matchedFields).to.deep.equal([
        'body',
        'title',
      ]);
    });

    it('lets field weights change the order', () => {
      expect(ids(index.search('rust', { weights: { title: 5, body: 1 } }))).to.deep.equal(['inTitle', 'inBody']);
      expect(ids(index.search('rust', { weights: { title: 1, body: 5 } }))).to.deep.equal(['inBody', 'inTitle']);
      const plain = index.search('rust').find((h) => h.id === 'inTitle')!.score;
      expect(index.search('rust', { weights: { title: 3 } }).find((h) => h.id === 'inTitle')!.score).to.be.closeTo(
        3 * plain,
        1e-9,
      );
    });

    it('searches only the named fields', () => {
      expect(ids(index.search('rust', { fields: ['title'] }))).to.deep.equal(['inTitle']);
      expect(ids(index.search('rust', { fields: ['missing'] }))).to.deep.equal([]);
    });

    it('rejects negative weights', () => {
      expect(() => index.search('rust', { weights: { title: -1 } })).to.throw(InvalidInput, "field 'title'");
    });

    it('reports matched fields and boosts exact phrases past the 31st field and word too', () => {
      const many: Record<string, string> = {};
      for (let i = 0; i < 40; i++)
        many[`f${String(i).padStart(2, '0')}`] = i === 35 ? 'zebra crossing' : i === 2 ? 'zebra' : 'filler';
      const wide = indexOf({ wide: many });
      expect(wide.search('zebra')[0]!.matchedFields).to.deep.equal(['f02', 'f35']);
      const words = Array.from({ length: 34 }, (_, i) => `w${i}x`);
      const long = indexOf({ exact: { body: words.join(' ') }, other: { body: words.slice(0, 33).join(' ') } });
      const plain = new Map(long.search(words.join(' ')).map((h) => [h.id, h.score]));
      const boosted = new Map(long.search(words.join(' '), { boostExact: true }).map((h) => [h.id, h.score]));
      expect(boosted.get('exact')).to.be.closeTo(plain.get('exact')! * EXACT_BOOST, 1e-9);
      expect(boosted.get('other')).to.equal(plain.get('other'));
    });
  });

  describe('case sensitivity', () => {
    const index = indexOf({ upper: { body: 'Apple pie' }, lower: { body: 'apple juice' } });

    it('matches across case by default', () => {
      expect(ids(index.search('APPLE')).sort()).to.deep.equal(['lower', 'upper']);
    });

    it('does not match "apple" for "Apple" when case-sensitive, stemmed or fuzzy', () => {
      expect(ids(index.search('Apple', { caseSensitive: true }))).to.deep.equal(['upper']);
      expect(ids(index.search('Apples', { caseSensitive: true }))).to.deep.equal(['upper']);
      expect(ids(index.search('Appel', { caseSensitive: true, fuzzy: true, maxEditDistance: 2 }))).to.deep.equal([
        'upper',
      ]);
    });
  });

  describe('min score, exact boost, filter and limit', () => {
    const index = indexOf({
      phrase: { body: 'machine learning basics' },
      scattered: { body: 'learning about a machine' },
      weak: { body: 'machines everywhere and more words to make it long enough' },
    });

    it('drops hits below min score', () => {
      const all = index.search('machine learning');
      const cut = (all[0]!.score + all[all.length - 1]!.score) / 2;
      const kept = index.search('machine learning', { minScore: cut });
      expect(kept.length).to.be.within(1, all.length - 1);
      for (const hit of kept) expect(hit.score).to.be.at.least(cut);
    });

    it('boosts records that contain the exact query phrase', () => {
      const plain = new Map(index.search('machine learning').map((h) => [h.id, h.score]));
      const boosted = new Map(index.search('machine learning', { boostExact: true }).map((h) => [h.id, h.score]));
      expect(boosted.get('phrase')).to.be.closeTo(plain.get('phrase')! * EXACT_BOOST, 1e-9);
      expect(boosted.get('scattered')).to.equal(plain.get('scattered'));
      expect(boosted.get('weak')).to.equal(plain.get('weak'));
    });

    it('ranks only records the filter allows, and stops at the limit', () => {
      expect(ids(index.search('machine', { filter: (id) => id !== 'phrase' })).sort()).to.deep.equal([
        'scattered',
        'weak',
      ]);
      expect(index.search('machine', { limit: 1 })).to.have.length(1);
    });
  });

  describe('incremental maintenance', () => {
    it('forgets removed records and their words', () => {
      const index = indexOf({ a: { body: 'unique zebra' }, b: { body: 'plain text' } });
      index.remove('a');
      index.remove('never-added');
      expect(index.has('a')).to.equal(false);
      expect(index.size()).to.equal(1);
      expect(index.search('zebra', { fuzzy: true })).to.deep.equal([]);
      index.remove('b');
      expect(index.vocabularySize()).to.equal(0);
    });

    it('replaces the indexed text when an id is added again', () => {
      const index = indexOf({ a: { body: 'old words' } });
      index.add('a', { body: 'new words' });
      expect(index.size()).to.equal(1);
      expect(ids(index.search('old'))).to.deep.equal([]);
      expect(ids(index.search('new'))).to.deep.equal(['a']);
    });

    it('scores exactly as a fresh index after seeded random inserts, updates and deletes', () => {
      const random = mulberry32(42);
      const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'Sigma', 'running', 'runs', 'ran', 'tau'];
      const text = (): string =>
        Array.from({ length: 1 + Math.floor(random() * 8) }, () => words[Math.floor(random() * words.length)]).join(
          ' ',
        );
      const live = new Map<string, Record<string, string>>();
      const index = new TextIndex();
      for (let step = 0; step < 600; step++) {
        const id = `r${Math.floor(random() * 80)}`;
        if (random() < 0.3) {
          index.remove(id);
          live.delete(id);
        } else {
          const fields: Record<string, string> = random() < 0.5 ? { title: text(), body: text() } : { body: text() };
          index.add(id, fields);
          live.set(id, fields);
        }
      }
      const fresh = indexOf(Object.fromEntries(live));
      for (const query of ['alpha', 'sigma run', 'gama', 'omega tau beta']) {
        const options = { fuzzy: true, boostExact: true };
        const got = index.search(query, options);
        const want = fresh.search(query, options);
        expect(ids(got)).to.have.members(ids(want));
        const wantScores = new Map(want.map((h) => [h.id, h.score]));
        for (const hit of got) expect(hit.score).to.be.closeTo(wantScores.get(hit.id)!, 1e-9);
      }
    });

    it('rejects non-string field values', () => {
      const index = new TextIndex();
      expect(() => index.add('a', { body: 42 as unknown as string })).to.throw(InvalidInput, "'body'");
    });
  });
});
