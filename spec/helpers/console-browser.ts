/**
 * The browser console's test harness: a real server, Debian's headless Chromium driven by playwright-core, signed
 * in with a key; every screenshot goes to spec/console/screenshots/ (not committed) and is checked with axe-core.
 * `consoleHarness()` registers mocha hooks in the calling describe (skipped when chromium or the built console is
 * missing) and its last check fails on any request to another origin or serious accessibility finding.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ADMIN_KEY, TestServer } from './test-server.js';

type TestServerOptions = Parameters<typeof TestServer.start>[0];
import { defaultConsoleDir } from '../../lib/http/console/index.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
export const SCREENSHOTS = path.resolve('spec', 'console', 'screenshots');
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

export interface ConsoleHarness {
  /** The server (set in `before`). */
  t: TestServer;
  page: Page;
  browser: Browser;
  /** Screenshots the page as `name.png` and checks it with axe (light theme, then dark). */
  shot(name: string): Promise<void>;
  /** Opens a console path (such as `/collections`) in the signed-in tab. */
  open(path: string): Promise<void>;
  /** Signs in through the sign-in page with this API key (the admin key by default). */
  signIn(key?: string): Promise<void>;
}

/**
 * Registers before/after hooks and the closing checks in the current describe. `seed` runs against the server
 * before the browser opens; the tab is signed in with the admin key unless `signIn: false`.
 */
export function consoleHarness(
  options: { server?: TestServerOptions; seed?: (t: TestServer) => Promise<void>; signIn?: boolean } = {},
): ConsoleHarness {
  const foreign: string[] = [];
  const axeFailures: string[] = [];
  const h = {} as ConsoleHarness;
  before(async function () {
    this.timeout(30_000);
    if (!CHROMIUM) return this.skip(); // no chromium on this machine: apt-get install -y chromium
    if (!existsSync(path.join(defaultConsoleDir(), 'index.html'))) return this.skip(); // npm run build first
    mkdirSync(SCREENSHOTS, { recursive: true });
    h.t = await TestServer.start({ memory: true, ...options.server });
    if (options.seed) await options.seed(h.t);
    h.browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    h.page = await h.browser.newPage({ viewport: { width: 1100, height: 760 } });
    h.page.setDefaultTimeout(8000);
    const origin = new URL(h.t.url).origin;
    h.page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.origin !== origin && u.origin.replace(/^ws/, 'http') !== origin) foreign.push(r.url());
    });
    if (options.signIn !== false) await h.signIn();
  });
  after(async () => {
    await h.browser?.close();
    await h.t?.stop();
  });
  h.open = async (to: string) => {
    await h.page.goto(`${h.t.url}${to}`);
  };
  h.signIn = async (key = ADMIN_KEY) => {
    await h.page.goto(`${h.t.url}/sign-in`);
    await h.page.evaluate('sessionStorage.clear()');
    await h.page.goto(`${h.t.url}/sign-in`);
    await h.page.fill('#api-key', key);
    await h.page.press('#api-key', 'Enter');
    await h.page.waitForURL((u) => !u.pathname.startsWith('/sign-in'));
  };
  h.shot = async (name: string) => {
    const page = h.page;
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
    for (const problem of await axeProblems(page)) axeFailures.push(`${name}: ${problem}`);
    await page.emulateMedia({ colorScheme: 'dark' });
    for (const problem of await axeProblems(page)) axeFailures.push(`${name} (dark): ${problem}`);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-dark.png`), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
  };
  describe('closing checks', () => {
    it('made no request to another origin', () => {
      expect(foreign).to.deep.equal([]);
    });
    it('has no serious or critical accessibility violations on any page, light or dark (axe-core)', () => {
      expect(axeFailures).to.deep.equal([]);
    });
  });
  return h;
}
