/**
 * The key-value page in a real headless Chromium: browse by prefix one page at a time, a TTL counting down, edit a
 * value with a TTL, follow and add links to records, delete with confirmation, and a read-only key limited to a
 * prefix seeing its prefix and every write control disabled.
 */
import { expect } from 'chai';
import { consoleHarness } from '../helpers/console-browser.js';

describe('console key-value page (headless chromium)', function () {
  this.timeout(30_000);
  let readOnlyKey = '';
  const h = consoleHarness({
    seed: async (t) => {
      await t.request('POST', '/api/batch/insert/users', {
        inserts: [{ data: { id: 'u1', name: 'Ada Lovelace' } }, { data: { id: 'u2', name: 'Grace Hopper' } }],
      });
      await t.request('POST', '/api/kv/set/app:theme', { value: { color: 'blue', dense: false } });
      await t.request('POST', '/api/kv/set/app:lang', { value: 'en' });
      await t.request('POST', '/api/kv/set/app:session', { value: { user: 'u1' }, ttl: 3600 });
      await t.request('POST', '/api/kv/set/other:x', { value: 1 });
      await t.request('POST', '/api/kv/batch/set', {
        keys: Array.from({ length: 30 }, (_, i) => `bulk:${String(i).padStart(2, '0')}`),
        values: Array.from({ length: 30 }, (_, i) => ({ n: i })),
      });
      await t.request('POST', '/api/kv/link', { key: 'app:theme', collection: 'users', document_id: 'u1' });
      const key = await t.request('POST', '/api/auth/keys', {
        name: 'app reader',
        collection_permissions: { users: { read: true } },
        kv_permissions: { read: true, write: false, prefixes: ['app:'] },
      });
      readOnlyKey = key.body.key;
    },
  });
  const rows = () => h.page.locator('table.kv-keys tbody tr');

  it('browses the keys starting with a prefix, with the prefix in the URL', async () => {
    await h.open('/kv');
    await h.page.fill('#kv-text', 'app:');
    await h.page.click('button:text("Browse")');
    await h.page.waitForURL(/\/kv\?prefix=app%3A$/);
    await h.page.locator('tr[data-key="app:theme"]').waitFor();
    expect(await rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key')))).to.deep.equal([
      'app:lang',
      'app:session',
      'app:theme',
    ]);
    await h.shot('kv');
  });

  it('shows a TTL counting down each second', async () => {
    const ttl = h.page.locator('tr[data-key="app:session"] [data-testid="ttl"]');
    const first = await ttl.textContent();
    expect(first).to.match(/^(59m \d\ds|1h 00m 00s)$/);
    await ttl.filter({ hasNotText: first! }).waitFor({ timeout: 2500 });
    expect(await h.page.locator('tr[data-key="app:theme"] td.num').textContent()).to.equal('never');
  });

  it('browses by a regular expression, and shows a refused pattern with its request id', async () => {
    await h.page.selectOption('#kv-mode', 'pattern');
    await h.page.fill('#kv-text', '(theme|session)$');
    await h.page.click('button:text("Browse")');
    await h.page.waitForURL(/\/kv\?pattern=/);
    await h.page.locator('tr[data-key="app:lang"]').waitFor({ state: 'detached' });
    expect(await rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key')))).to.deep.equal([
      'app:session',
      'app:theme',
    ]);
    await h.open('/kv?pattern=(');
    const alert = h.page.locator('[role="alert"]', { hasText: 'request_id' });
    await alert.waitFor();
    expect(await alert.textContent()).to.include('pattern');
  });

  it('reads one page at a time and follows the next page', async () => {
    await h.open('/kv?prefix=bulk:&limit=25');
    await h.page.locator('tr[data-key="bulk:24"]').waitFor();
    expect(await rows().count()).to.equal(25);
    await h.page.click('a:text("Next page")');
    await h.page.locator('tr[data-key="bulk:29"]').waitFor();
    expect(await rows().count()).to.equal(5);
    expect(h.page.url()).to.include('after=bulk%3A24');
    expect(await h.page.locator('[data-testid="kv-count"]').textContent()).to.include('the last page');
  });

  it('edits a value with a TTL in the JSON editor', async () => {
    await h.open('/kv?prefix=app:');
    await h.page.click('tr[data-key="app:theme"] a');
    await h.page.waitForURL(/\/kv\/app%3Atheme\?prefix=app%3A$/);
    const editor = h.page.locator('#kv-edit-value');
    await editor.waitFor();
    expect(JSON.parse(await editor.inputValue())).to.deep.equal({ color: 'blue', dense: false });
    await h.page.locator('[data-link="users/u1"]').waitFor();
    await h.shot('kv-entry');
    await editor.fill('{"color": "green"');
    await h.page.locator('.field-errors', { hasText: 'Not JSON' }).waitFor();
    expect(await h.page.locator('button:text("Save value")').isDisabled()).to.equal(true);
    await editor.fill('{"color": "green", "dense": true}');
    await h.page.fill('#kv-edit-ttl', '90');
    await h.page.click('button:text("Save value")');
    await h.page.locator('[role="status"]', { hasText: 'Saved' }).waitFor();
    // The countdown runs from the save: a slow page (a loaded machine) may show it some seconds on.
    await h.page.locator('[data-testid="kv-entry"] [data-testid="ttl"]', { hasText: /^1m ([0-2]\d|30)s$/ }).waitFor();
    const got = await h.t.request('GET', '/api/kv/get/app:theme');
    expect(got.body.value.value).to.deep.equal({ color: 'green', dense: true });
    await h.page.locator('tr[data-key="app:theme"] [data-testid="ttl"]').waitFor(); // the list shows the new TTL
  });

  it('links a record and follows a link to the record', async () => {
    await h.page.fill('#kv-link-collection', 'users');
    await h.page.fill('#kv-link-record', 'u2');
    await h.page.click('button:text-is("Link")');
    await h.page.locator('[data-link="users/u2"]').waitFor();
    await h.page.click('[data-link="users/u1"] a');
    await h.page.waitForURL(/\/collections\/users\/records\/u1$/);
    expect(await h.page.locator('[data-testid="record-json"]').textContent()).to.include('Ada Lovelace');
  });

  it('sets a new key with a TTL and opens it', async () => {
    await h.open('/kv?prefix=app:');
    await h.page.click('a:text("New key")');
    await h.page.waitForURL(/new=1/);
    expect(await h.page.inputValue('#kv-new-key')).to.equal('app:');
    await h.page.fill('#kv-new-key', 'app:flags');
    await h.page.fill('#kv-new-value', '["beta", "dark"]');
    await h.page.fill('#kv-new-ttl', '5m');
    await h.page.click('button:text("Set key")');
    await h.page.waitForURL(/\/kv\/app%3Aflags\?prefix=app%3A$/);
    await h.page
      .locator('[data-testid="kv-entry"] [data-testid="ttl"]', { hasText: /^(4m [0-5]\ds|5m 00s)$/ })
      .waitFor();
    await h.page.locator('tr[data-key="app:flags"]').waitFor();
    expect((await h.t.request('GET', '/api/kv/get/app:flags')).body.value.value).to.deep.equal(['beta', 'dark']);
  });

  it('deletes a key after confirmation', async () => {
    await h.open('/kv/app%3Alang?prefix=app%3A');
    await h.page.click('button:text("Delete key")');
    await h.page.locator('dialog.confirm[open]').waitFor();
    await h.shot('kv-delete-confirm');
    await h.page.click('dialog.confirm[open] button:text("Delete")');
    await h.page.waitForURL(/\/kv\?prefix=app%3A$/);
    await h.page.locator('tr[data-key="app:lang"]').waitFor({ state: 'detached' });
    expect((await h.t.request('GET', '/api/kv/get/app:lang')).status).to.equal(404);
  });

  it('fits a phone', async () => {
    await h.page.setViewportSize({ width: 390, height: 800 });
    await h.open('/kv/app%3Asession?prefix=app%3A');
    await h.page.locator('#kv-edit-value').waitFor();
    await h.shot('kv-phone');
    const overflow = (await h.page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
    expect(overflow).to.be.at.most(0);
    await h.page.setViewportSize({ width: 1100, height: 760 });
  });

  it('starts a read-only key limited to a prefix at its prefix, with every write control disabled', async () => {
    await h.signIn(readOnlyKey);
    await h.open('/kv');
    await h.page.locator('tr[data-key="app:theme"]').waitFor();
    expect(await h.page.inputValue('#kv-text')).to.equal('app:');
    expect(await h.page.locator('tr[data-key="other:x"]').count()).to.equal(0);
    const newKey = h.page.locator('button:text("New key")');
    expect(await newKey.isDisabled()).to.equal(true);
    expect(await newKey.getAttribute('title')).to.equal('This API key may not do this');
    await h.page.click('tr[data-key="app:theme"] a');
    await h.page.locator('[data-testid="read-only"]').waitFor();
    for (const control of ['button:text("Save value")', 'button:text("Delete key")', 'button:text-is("Link")']) {
      const c = h.page.locator(control);
      expect(await c.isDisabled(), control).to.equal(true);
      expect(await c.getAttribute('title'), control).to.equal('This API key may not do this');
    }
    expect(await h.page.locator('#kv-edit-value').getAttribute('readonly')).to.not.equal(null);
    await h.page.locator('[data-link="users/u1"]').waitFor();
    await h.shot('kv-read-only');
  });
});
