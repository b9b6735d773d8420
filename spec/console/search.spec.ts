/**
 * The search page in a real headless Chromium on a seeded collection with 3-dimensional vectors: a text search
 * with scores and marked terms, a vector search, a hybrid search, the empty state, a deep link, and a server error
 * (an embedded 384-dimensional vector against the 3-dimensional index) shown with its request id.
 */
import { expect } from 'chai';
import { consoleHarness } from '../helpers/console-browser.js';

const ARTICLES = [
  { id: 'a1', title: 'Running shoes for trail runners', body: 'Light shoes with grip for muddy trails', v: [1, 0, 0] },
  { id: 'a2', title: 'Road bikes compared', body: 'Carbon frames and gear ratios for road cycling', v: [0, 1, 0] },
  { id: 'a3', title: 'Trail maps', body: 'Printed maps for long walks in the hills', v: [0.8, 0.2, 0] },
  { id: 'a4', title: 'Swimming goggles', body: 'Anti-fog lenses for open water', v: [0, 0, 1] },
];

describe('console search page (headless chromium)', function () {
  this.timeout(30_000);
  const h = consoleHarness({
    seed: async (t) => {
      const created = await t.request('POST', '/api/collections/articles', {
        fields: {
          title: { field_type: 'String', required: true },
          body: { field_type: 'String' },
          embedding: { field_type: 'Vector', index: { type: 'vector', metric: 'cosine' } },
        },
      });
      expect(created.status, created.text).to.be.oneOf([200, 201]);
      const inserted = await t.request('POST', '/api/batch/insert/articles', {
        inserts: ARTICLES.map(({ v, ...a }) => ({ data: { ...a, embedding: v } })),
      });
      expect(inserted.status, inserted.text).to.be.oneOf([200, 201]);
    },
  });
  const hits = () => h.page.locator('.search-hit');
  const ids = () => hits().evaluateAll((li) => li.map((e) => e.getAttribute('data-id')));
  const search = async () => {
    await h.page.click('button:text-is("Search")');
    await h.page.locator('[data-testid="search-summary"]').waitFor();
  };

  it('runs a text search with scores and the query terms marked in the matched fields', async () => {
    await h.open('/search');
    await h.page.locator('#search-collection option[value="articles"]').waitFor({ state: 'attached' });
    await h.shot('search-empty');
    await h.page.selectOption('#search-collection', 'articles');
    await h.page.fill('#search-q', 'trail running');
    await search();
    expect(h.page.url()).to.match(/\/search\?c=articles&q=trail\+running$/);
    expect((await ids())[0]).to.equal('a1');
    expect(await ids()).to.include('a3');
    const title = h.page.locator('.search-hit[data-id="a1"] [data-field="title"].matched mark');
    expect(await title.allTextContents()).to.deep.equal(['Running', 'trail', 'runners']);
    const score = await h.page.locator('.search-hit[data-id="a1"] [data-testid="score"] strong').textContent();
    expect(Number(score)).to.be.greaterThan(0);
    await h.shot('search-text');
  });

  it('runs a vector search from a JSON array, nearest first', async () => {
    await h.page.check('input[name="search-mode"][value="vector"]');
    await h.page.fill('#search-vector', '[1, 0, 0]');
    await search();
    expect(h.page.url()).to.include('mode=vector');
    expect((await ids()).slice(0, 2)).to.deep.equal(['a1', 'a3']);
    expect(await h.page.locator('.search-hit[data-id="a1"] [data-testid="score"] strong').textContent()).to.equal(
      '1.0000',
    );
    await h.shot('search-vector');
  });

  it('runs a hybrid search: text and vector together', async () => {
    await h.page.check('input[name="search-mode"][value="hybrid"]');
    await h.page.fill('#search-q', 'maps');
    await h.page.fill('#search-vector', '[0.9, 0.1, 0]');
    await search();
    expect(h.page.url()).to.include('mode=hybrid');
    const found = await ids();
    expect(found[0]).to.equal('a3');
    expect(found).to.include('a1');
    expect(await h.page.locator('.search-hit[data-id="a3"] .matched mark').first().textContent()).to.match(/maps/i);
    await h.shot('search-hybrid');
  });

  it('opens a search from its URL and says when nothing matches', async () => {
    await h.open('/search?c=articles&q=bikes');
    await h.page.locator('.search-hit[data-id="a2"]').waitFor();
    expect(await h.page.inputValue('#search-q')).to.equal('bikes');
    await h.open('/search?c=articles&q=zebra');
    await h.page.locator('text=No matches').waitFor();
  });

  it('shows the server error with its request id (an embedded vector of another dimension)', async () => {
    await h.open('/search?c=articles&mode=vector&embed=1&q=trail');
    const alert = h.page.locator('[role="alert"]', { hasText: 'request_id' });
    await alert.waitFor();
    expect(await alert.textContent()).to.include('dimensions');
    await h.shot('search-error');
  });

  it('fits a phone', async () => {
    await h.page.setViewportSize({ width: 390, height: 800 });
    await h.open('/search?c=articles&q=trail+running&limit=2');
    await h.page.locator('.search-hit').nth(1).waitFor();
    expect(await hits().count()).to.equal(2);
    await h.shot('search-phone');
    const overflow = (await h.page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
    expect(overflow).to.be.at.most(0);
    await h.page.setViewportSize({ width: 1100, height: 760 });
  });
});
