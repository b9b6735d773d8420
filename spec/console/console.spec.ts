/**
 * The browser console in a real headless Chromium (Debian's, driven by playwright-core) against a real server:
 * sign in, see a collection with its record count, page and filter its records, open one, watch a live insert.
 * Screenshots of every page go to spec/console/screenshots/ (not committed). Skipped when chromium or the built
 * console (npm run build) is missing.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ADMIN_KEY, TestServer } from '../helpers/test-server.js';
import { defaultConsoleDir } from '../../lib/http/console/index.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const SHOTS = path.resolve('spec', 'console', 'screenshots');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Runs axe-core on the page as it stands and returns the serious and critical violations, one line each. The
 * source goes in through page.evaluate (the DevTools protocol), which the console's CSP does not govern.
 */
async function axeProblems(page: Page): Promise<string[]> {
  const violations = await page.evaluate(async (source: string) => {
    const w = globalThis as unknown as { axe?: { run(): Promise<{ violations: AxeViolation[] }> } };
    if (!w.axe) (0, eval)(source);
    const result = await w.axe!.run();
    return result.violations;
  }, AXE_SOURCE);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

describe('browser console (headless chromium)', function () {
  this.timeout(30_000);
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  const foreign: string[] = [];

  before(async function () {
    if (!CHROMIUM) return this.skip(); // no chromium on this machine: apt-get install -y chromium
    if (!existsSync(path.join(defaultConsoleDir(), 'index.html'))) return this.skip(); // npm run build first
    mkdirSync(SHOTS, { recursive: true });
    t = await TestServer.start({ memory: true });
    const people = Array.from({ length: 30 }, (_, i) => ({ id: `p${i}`, name: `person ${i}`, age: 20 + i }));
    await t.request('POST', '/api/batch/insert/people', { inserts: people.map((data) => ({ data })) });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
    page.setDefaultTimeout(8000);
    const origin = new URL(t.url).origin;
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.origin !== origin && u.origin.replace(/^ws/, 'http') !== origin) foreign.push(r.url());
    });
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  const axeFailures: string[] = [];
  /** Screenshots the page and checks it with axe; the last test fails on any serious or critical finding. */
  const shot = async (name: string) => {
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
    for (const problem of await axeProblems(page)) axeFailures.push(`${name}: ${problem}`);
  };

  it('signs in with the admin key and shows the overview: health and a live traffic chart', async () => {
    await page.goto(`${t.url}/`);
    await page.waitForSelector('#api-key');
    await shot('sign-in');
    await page.fill('#api-key', ADMIN_KEY);
    await page.press('#api-key', 'Enter');
    await page.locator('[data-testid="health"]', { hasText: 'memory' }).waitFor();
    expect(page.url()).to.match(/\/overview$/);
    expect(await page.locator('[data-testid="health"]').textContent()).to.include('0.1.0');
    // Two samples (one refresh apart) make the first point; the health polling alone is traffic.
    await page
      .locator('[data-testid="latest-rate"]')
      .filter({ hasNotText: /^0\.00$/ })
      .waitFor({ timeout: 10_000 });
    await page.locator('.chart polyline[points*=" "]').first().waitFor({ timeout: 10_000 }); // a line: two points
    await shot('overview');
  });

  it('lists the collection with its record count', async () => {
    await page.click('nav a[href="/collections"]');
    const count = page.locator('tr[data-collection="people"] [data-testid="record-count"]');
    await count.filter({ hasText: '30' }).waitFor();
    await shot('collections');
  });

  it('pages and filters the records, and opens one', async () => {
    await page.click('a[href="/collections/people"]');
    await page.waitForSelector('table.data tbody tr');
    expect(await page.locator('table.data tbody tr').count()).to.equal(25);
    await shot('records');
    await page.click('text=Add condition');
    await page.fill('[aria-label="Field of condition 1"]', 'age');
    await page.selectOption('[aria-label="Operator of condition 1"]', 'Gte');
    await page.fill('[aria-label="Value of condition 1"]', '45');
    await page.click('text=Apply filter');
    await page.locator('table.data tbody tr').nth(5).waitFor({ state: 'detached' });
    await page.locator('a[href="/collections/people/records/p25"]').waitFor();
    expect(await page.locator('table.data tbody tr').count()).to.equal(5);
    expect(page.url()).to.include('f=');
    await shot('records-filtered');
    await page.click('a[href="/collections/people/records/p29"]');
    const json = await page.locator('[data-testid="record-json"]').textContent();
    expect(json).to.include('person 29');
    await shot('record');
  });

  it('shows a live insert on the real-time page', async () => {
    await page.goto(`${t.url}/realtime/people`);
    await page.locator('[data-testid="feed-state"]', { hasText: 'Live' }).waitFor();
    await t.request('POST', '/api/insert/people', { id: 'live-1', name: 'arrived live' });
    await page.locator('.feed li[data-event="insert"]', { hasText: 'live-1' }).waitFor();
    await shot('realtime');
  });

  it('shows the server error with its request id', async () => {
    await page.goto(`${t.url}/collections/people/records/nobody`);
    await page.locator('[role="alert"]', { hasText: 'request_id' }).waitFor();
    await shot('error');
  });

  it('works at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${t.url}/collections/people`);
    await page.waitForSelector('table.data tbody tr');
    await shot('records-phone');
  });

  it('reads well in the dark theme too', async () => {
    await page.setViewportSize({ width: 1100, height: 760 });
    await page.emulateMedia({ colorScheme: 'dark' });
    for (const [name, url, ready] of [
      ['overview-dark', '/overview', '[data-testid="health"]'],
      ['collections-dark', '/collections', 'tr[data-collection="people"]'],
      ['realtime-dark', '/realtime/people', '[data-testid="feed-state"]'],
    ] as const) {
      await page.goto(`${t.url}${url}`);
      await page.waitForSelector(ready);
      if (name === 'realtime-dark') {
        await page.locator(ready, { hasText: 'Live' }).waitFor();
        await t.request('POST', '/api/insert/people', { id: 'dark-1', name: 'seen in the dark' });
        await page.locator('.feed li[data-event="insert"]').waitFor();
      }
      await shot(name);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('made no request to another origin', () => {
    expect(foreign).to.deep.equal([]);
  });

  it('has no serious or critical accessibility violations on any page (axe-core)', () => {
    expect(axeFailures).to.deep.equal([]);
  });
});
