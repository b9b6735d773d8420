/**
 * The browser console's shell in a real headless Chromium against a real server: sign in, the overview, the
 * collection with its record count, paging, filtering and opening a record, a live insert, an error with its
 * request id, phone width. Each page family has its own spec beside this one; all use spec/helpers/console-browser.
 */
import { expect } from 'chai';
import { ADMIN_KEY } from '../helpers/test-server.js';
import { consoleHarness } from '../helpers/console-browser.js';

describe('browser console (headless chromium)', function () {
  this.timeout(30_000);
  const h = consoleHarness({
    signIn: false,
    seed: async (t) => {
      const people = Array.from({ length: 30 }, (_, i) => ({ id: `p${i}`, name: `person ${i}`, age: 20 + i }));
      await t.request('POST', '/api/batch/insert/people', { inserts: people.map((data) => ({ data })) });
    },
  });
  const shot = (name: string) => h.shot(name);

  it('signs in with the admin key and shows the overview: health, live traffic and memory charts', async () => {
    await h.page.goto(`${h.t.url}/`);
    await h.page.waitForSelector('#api-key');
    await shot('sign-in');
    await h.page.fill('#api-key', ADMIN_KEY);
    await h.page.press('#api-key', 'Enter');
    await h.page.locator('[data-testid="health"]', { hasText: 'memory' }).waitFor();
    expect(h.page.url()).to.match(/\/overview$/);
    expect(await h.page.locator('[data-testid="health"]').textContent()).to.include('0.1.0');
    // Two samples (one refresh apart) make the first point; the health polling alone is traffic.
    await h.page
      .locator('[data-testid="latest-rate"]')
      .filter({ hasNotText: /^0\.00$/ })
      .waitFor({ timeout: 10_000 });
    await h.page.locator('.chart polyline[points*=" "]').first().waitFor({ timeout: 10_000 }); // a line: two points
    await h.page
      .locator('[data-testid="latest-memory"]')
      .filter({ hasNotText: /^0\.00$/ })
      .waitFor();
    await shot('overview');
  });

  it('lists the collection with its record count', async () => {
    await h.page.click('nav a[href="/collections"]');
    const count = h.page.locator('tr[data-collection="people"] [data-testid="record-count"]');
    await count.filter({ hasText: '30' }).waitFor();
    await shot('collections');
  });

  it('pages and filters the records, and opens one', async () => {
    await h.page.click('a[href="/collections/people"]');
    await h.page.waitForSelector('table.data tbody tr');
    expect(await h.page.locator('table.data tbody tr').count()).to.equal(25);
    await shot('records');
    await h.page.click('text=Add condition');
    await h.page.fill('[aria-label="Field of condition 1"]', 'age');
    await h.page.selectOption('[aria-label="Operator of condition 1"]', 'Gte');
    await h.page.fill('[aria-label="Value of condition 1"]', '45');
    await h.page.click('text=Apply filter');
    await h.page.locator('table.data tbody tr').nth(5).waitFor({ state: 'detached' });
    await h.page.locator('a[href="/collections/people/records/p25"]').waitFor();
    expect(await h.page.locator('table.data tbody tr').count()).to.equal(5);
    expect(h.page.url()).to.include('f=');
    await shot('records-filtered');
    await h.page.click('a[href="/collections/people/records/p29"]');
    const json = await h.page.locator('[data-testid="record-json"]').textContent();
    expect(json).to.include('person 29');
    await shot('record');
  });

  it('shows a live insert on the real-time page', async () => {
    await h.page.goto(`${h.t.url}/realtime/people`);
    await h.page.locator('[data-testid="feed-state"]', { hasText: 'Live' }).waitFor();
    await h.t.request('POST', '/api/insert/people', { id: 'live-1', name: 'arrived live' });
    await h.page.locator('.feed li[data-event="insert"]', { hasText: 'live-1' }).waitFor();
    await shot('realtime');
  });

  it('shows a live insert in the records table and its count, marked as new', async () => {
    await h.page.goto(`${h.t.url}/collections/people?skip=25`);
    await h.page.locator('[data-testid="records-live"]').waitFor();
    const before = Number((await h.page.locator('[data-testid="total"]').textContent())!.replace(/\D/g, ''));
    await h.t.request('POST', '/api/insert/people', { id: 'live-2', name: 'seen in the table' });
    await h.page.locator('table.data tr.fresh[data-id="live-2"]').waitFor();
    await h.page.locator('[data-testid="total"]', { hasText: `${before + 1} records` }).waitFor();
    await shot('records-live');
  });

  it('shows the server error with its request id', async () => {
    await h.page.goto(`${h.t.url}/collections/people/records/nobody`);
    await h.page.locator('[role="alert"]', { hasText: 'request_id' }).waitFor();
    await shot('error');
  });

  it('works at phone width', async () => {
    await h.page.setViewportSize({ width: 390, height: 800 });
    await h.page.goto(`${h.t.url}/collections/people`);
    await h.page.waitForSelector('table.data tbody tr');
    await shot('records-phone');
  });
});
