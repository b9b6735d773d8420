import { expect } from 'chai';
import { InvalidInput } from '../../lib/errors.js';
import { cosineSimilarity, OfflineEmbedder, type Embedder } from '../../lib/vector/index.js';

describe('vector/embedder (offline)', () => {
  const embedder: Embedder = new OfflineEmbedder();

  it('names its model and gives 384 dimensions by default', async () => {
    expect(embedder.model).to.equal('eddydb-offline-hash-v1');
    expect(embedder.dimensions).to.equal(384);
    const [vector] = await embedder.embed(['hello world']);
    expect(vector).to.have.length(384);
  });

  it('is deterministic, including a pinned value that must not change across runs and machines', async () => {
    const [a] = await embedder.embed(['The quick brown fox']);
    const [b] = await new OfflineEmbedder().embed(['The quick brown fox']);
    expect(a).to.deep.equal(b);
    const nonZero = a!
      .map((x, i) => [i, x] as const)
      .filter(([, x]) => x !== 0)
      .slice(0, 3);
    expect(nonZero.map(([i, x]) => [i, Number(x.toFixed(6))])).to.deep.equal(PINNED);
  });

  it('returns unit vectors, and the zero vector for text without words', async () => {
    const vectors = await embedder.embed(['a', 'Some longer text, with punctuation!', 'ünïcödé wörds']);
    for (const v of vectors) expect(Math.hypot(...v)).to.be.closeTo(1, 1e-12);
    const [empty] = await embedder.embed(['  ...  ']);
    expect(empty!.every((x) => x === 0)).to.equal(true);
  });

  it('places similar texts closer than unrelated ones', async () => {
    const [query, near, typo, far] = await embedder.embed([
      'how to index a database',
      'indexing databases for fast queries',
      'databse indexes',
      'banana bread recipe with walnuts',
    ]);
    expect(cosineSimilarity(query!, near!)).to.be.greaterThan(cosineSimilarity(query!, far!) + 0.2);
    expect(cosineSimilarity(query!, typo!)).to.be.greaterThan(cosineSimilarity(query!, far!) + 0.2);
  });

  it('ignores case and punctuation', async () => {
    const [a, b] = await embedder.embed(['Hello, World!', 'hello world']);
    expect(a).to.deep.equal(b);
  });

  it('embeds to the requested dimensions and validates its input', async () => {
    const small = new OfflineEmbedder({ dimensions: 16 });
    expect((await small.embed(['x y z']))[0]).to.have.length(16);
    expect(() => new OfflineEmbedder({ dimensions: 4 })).to.throw(InvalidInput);
    let error: unknown;
    await embedder.embed([42 as unknown as string]).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(InvalidInput);
  });
});

const PINNED: Array<[number, number]> = [
  [26, 0.102062],
  [30, -0.102062],
  [44, 0.102062],
];
