/**
 * The text index's top-k retrieval (block-max WAND) against the exhaustive
 * scorer (spec/helpers/exhaustive-text-index.ts) on seeded random corpora,
 * queries and options: the same hits, ids, scores bit for bit, order and
 * matched fields, through inserts, updates and deletes (enough to compact
 * posting lists and renumber documents). TEXT_FUZZ_SEED replays a failure;
 * TEXT_FUZZ_ROUNDS runs longer.
 */
import { expect } from 'chai';
import { TextIndex, type TextSearchOptions } from '../../../lib/vector/index.js';
import { ExhaustiveTextIndex } from '../../helpers/exhaustive-text-index.js';
import { mulberry32 } from '../../helpers/seeded-random.js';

const SEED = Number(process.env.TEXT_FUZZ_SEED ?? 20_241);
const ROUNDS = Number(process.env.TEXT_FUZZ_ROUNDS ?? 6);

/** Words chosen to exercise stems, case variants, near spellings and dense postings. */
const WORDS = [
  'run',
  'runs',
  'running',
  'runner',
  'Run',
  'RUN',
  'apple',
  'Apple',
  'apples',
  'appel',
  'data',
  'database',
  'databse',
  'index',
  'indexes',
  'indexing',
  'fox',
  'foxes',
  'lazy',
  'dog',
  'the',
  'a',
  'quick',
  'brown',
  'x',
  'éclair',
  'Éclair',
  'zebra',
];
const FIELDS = ['title', 'body', 'tags'];

type Random = () => number;
const pick = <T>(r: Random, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;

/** A text of `n` words from the first `vocabulary` words (a small vocabulary gives dense postings and ties). */
function text(r: Random, vocabulary: number, n: number): string {
  return Array.from({ length: n }, () => pick(r, WORDS.slice(0, vocabulary))).join(r() < 0.1 ? ', ' : ' ');
}

function record(r: Random, vocabulary: number, fixedLength: boolean): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name of FIELDS) {
    if (r() < 0.3) continue;
    const n = fixedLength ? 12 : Math.floor(r() * 30);
    fields[name] = text(r, vocabulary, n);
  }
  return fields;
}

function query(r: Random): string {
  const n = 1 + Math.floor(r() * 4);
  return Array.from({ length: n }, () => (r() < 0.05 ? 'nowhere' : pick(r, WORDS))).join(' ');
}

function options(r: Random, ids: readonly string[]): TextSearchOptions {
  const o: TextSearchOptions = {};
  if (r() < 0.3) o.fields = Array.from({ length: 1 + Math.floor(r() * 3) }, () => pick(r, [...FIELDS, 'missing']));
  if (r() < 0.3) o.weights = Object.fromEntries(FIELDS.map((f) => [f, pick(r, [0, 0.5, 1, 2, 3])]));
  if (r() < 0.3) o.fuzzy = true;
  if (r() < 0.2) o.maxEditDistance = Math.floor(r() * 3);
  if (r() < 0.2) o.caseSensitive = true;
  if (r() < 0.2) o.stemming = false;
  if (r() < 0.1) o.language = pick(r, ['french', 'klingon', 'en']);
  o.boostExact = r() < 0.7;
  if (r() < 0.8) o.limit = pick(r, [1, 2, 3, 5, 10, 30, 100]);
  if (r() < 0.2) {
    const banned = new Set(ids.filter(() => r() < 0.3));
    o.filter = (id) => !banned.has(id);
  }
  return o;
}

/** Runs `searches` random queries on both indexes and expects the same answers. */
function compare(r: Random, ours: TextIndex, reference: ExhaustiveTextIndex, ids: string[], searches: number): void {
  for (let i = 0; i < searches; i++) {
    const q = query(r);
    const o = options(r, ids);
    if (r() < 0.25) {
      // A min_score between the reference's scores, so it cuts.
      const all = reference.search(q, { ...o, limit: undefined });
      if (all.length > 0) o.minScore = all[Math.floor(r() * all.length)]!.score;
    }
    const want = reference.search(q, o);
    const got = ours.search(q, o);
    expect(got, `query '${q}' with ${JSON.stringify({ ...o, filter: !!o.filter })}`).to.deep.equal(want);
  }
}

describe('vector/text top-k retrieval against the exhaustive scorer', function () {
  this.timeout(120_000);

  for (let round = 0; round < ROUNDS; round++) {
    const seed = SEED + round;
    const vocabulary = [4, 8, 16, WORDS.length][round % 4]!;
    const fixedLength = round % 2 === 1;
    it(`gives the same hits, scores and order (seed ${seed}, ${vocabulary} words, lengths ${
      fixedLength ? 'equal' : 'varied'
    })`, () => {
      const r = mulberry32(seed);
      const ours = new TextIndex();
      const reference = new ExhaustiveTextIndex();
      const ids = Array.from({ length: 400 }, (_, i) => `r${String(i).padStart(3, '0')}`);
      for (const id of ids) {
        const fields = record(r, vocabulary, fixedLength);
        ours.add(id, fields);
        reference.add(id, fields);
      }
      compare(r, ours, reference, ids, 60);
      // Updates and deletes, with searches among them.
      for (let step = 0; step < 3000; step++) {
        const id = pick(r, ids);
        if (r() < 0.3) {
          ours.remove(id);
          reference.remove(id);
        } else {
          const fields = record(r, vocabulary, fixedLength);
          ours.add(id, fields);
          reference.add(id, fields);
        }
        if (step % 500 === 499) compare(r, ours, reference, ids, 20);
      }
      compare(r, ours, reference, ids, 60);
      expect(ours.size()).to.equal(reference.size());
    });
  }

  it('gives the same top 10 on a large dense corpus of equal-length records (ties everywhere)', () => {
    const r = mulberry32(SEED);
    const ours = new TextIndex();
    const reference = new ExhaustiveTextIndex();
    const ids: string[] = [];
    for (let i = 0; i < 5000; i++) {
      const id = `d${Math.floor(r() * 1e9).toString(36)}`;
      ids.push(id);
      const fields = { body: text(r, 8, 20) };
      ours.add(id, fields);
      reference.add(id, fields);
    }
    for (let i = 0; i < 40; i++) {
      const q = Array.from({ length: 1 + (i % 3) }, () => pick(r, WORDS.slice(0, 8))).join(' ');
      for (const limit of [1, 10, 30]) {
        const o = { limit, boostExact: true };
        expect(ours.search(q, o), q).to.deep.equal(reference.search(q, o));
      }
    }
  });

  it('removes everything and leaves no term behind', () => {
    const r = mulberry32(SEED);
    const ours = new TextIndex();
    const ids = Array.from({ length: 3000 }, (_, i) => `r${i}`);
    for (let pass = 0; pass < 3; pass++) for (const id of ids) ours.add(id, record(r, WORDS.length, false));
    for (const id of ids) ours.remove(id);
    expect(ours.size()).to.equal(0);
    expect(ours.vocabularySize()).to.equal(0);
    expect(ours.search('run apple', { fuzzy: true })).to.deep.equal([]);
  });
});
