/**
 * The console's transactions page in a real headless Chromium: a transaction begun over HTTP listed with its
 * status, rolled back from the console, and the audit trail filtered by transaction and paged without asking for
 * more than the pages shown; the keys and transactions pages at phone width.
 */
import { expect } from 'chai';
import { consoleHarness } from '../helpers/console-browser.js';

describe('console: transactions and the audit trail', function () {
  this.timeout(40_000);
  const h = consoleHarness({
    seed: async (t) => {
      await t.request('POST', '/api/insert/orders', { id: 'o1', status: 'open' });
    },
  });
  let txId = '';

  it('lists a transaction begun over HTTP, with its status', async () => {
    const begun = await h.t.request('POST', '/api/transactions', { isolation_level: 'Serializable' });
    expect(begun.status).to.equal(200);
    txId = begun.body.transaction_id;
    const staged = await h.t.request('POST', `/api/insert/orders?transaction_id=${txId}`, { id: 'o2', status: 'new' });
    expect(staged.status).to.be.within(200, 201);
    const savepoint = await h.t.request('POST', `/api/transactions/${txId}/savepoints`, { name: 'sp1' });
    expect(savepoint.status).to.be.within(200, 201);

    await h.open('/transactions');
    const row = h.page.locator(`tr[data-transaction="${txId}"]`);
    await row.waitFor();
    expect(await row.textContent()).to.include('Serializable');
    await h.shot('transactions');

    await row.locator('a').click();
    await h.page.waitForURL(/\?tx=/);
    const status = h.page.locator('[data-testid="transaction-status"]');
    await status.locator('[data-testid="status-operations"]', { hasText: '1' }).waitFor();
    const text = await status.textContent();
    expect(text).to.include('Active');
    expect(text).to.include('Serializable');
    expect(text).to.match(/Savepoints\s*1/);
    await h.shot('transaction-status');
  });

  it('rolls it back from the console', async () => {
    await h.page.click('button:has-text("Roll back this transaction")');
    await h.page.locator('dialog.confirm[open]').waitFor();
    await h.page.click('dialog.confirm[open] button:has-text("Roll back")');
    await h.page.locator('[role="status"]', { hasText: `Rolled back ${txId}` }).waitFor();
    await h.page.locator('text=No transaction is open.').waitFor();
    expect(h.page.url()).to.not.include('tx=');
    expect((await h.t.request('GET', `/api/transactions/${txId}`)).status).to.equal(404);
    expect((await h.t.request('GET', '/api/find/orders/o2')).status).to.equal(404);
    // Its status, asked by URL now, says it is no longer open rather than failing.
    await h.open(`/transactions?tx=${txId}`);
    await h.page.locator('[data-testid="transaction-ended"]').waitFor();
    expect(await h.page.locator('main .error').count()).to.equal(0);
  });

  it('shows the audit trail, filtered by transaction and paged', async () => {
    const asked: string[] = [];
    h.page.on('request', (r) => {
      if (r.url().includes('/api/admin/audit')) asked.push(r.url());
    });
    const trail = h.page.locator('[data-testid="audit"]');
    await trail.locator('tr[data-event="rollback"]').waitFor();
    await trail.locator(`a[aria-label="Audit trail of ${txId}"]`).first().click();
    await h.page.waitForURL(/audit_tx=/);
    await trail.locator('tbody tr').nth(2).waitFor();
    await h.page.waitForFunction('document.querySelectorAll(\'[data-testid="audit"] tbody tr\').length === 3');
    const events = await trail.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-event')));
    expect(events).to.deep.equal(['rollback', 'savepoint_create', 'begin']);
    await h.shot('audit-filtered');

    // 30 more transactions, begun and rolled back: 63 events in all, paged 25 at a time.
    for (let i = 0; i < 30; i++) {
      const id = (await h.t.request('POST', '/api/transactions', {})).body.transaction_id;
      await h.t.request('POST', `/api/transactions/${id}/rollback`);
    }
    await h.page.click('button:has-text("Every transaction")');
    await h.page.selectOption('[data-testid="audit"] select', '25');
    await h.page.locator('[data-testid="audit-range"]', { hasText: '1–25' }).waitFor();
    await h.page.click('button:has-text("Older")');
    await h.page.locator('[data-testid="audit-range"]', { hasText: '26–50' }).waitFor();
    expect(h.page.url()).to.include('page=1');
    await h.page.click('button:has-text("Older")');
    await h.page.locator('[data-testid="audit-range"]', { hasText: '51–63' }).waitFor();
    expect(await h.page.isDisabled('button:has-text("Older")')).to.equal(true);
    await trail.locator('tr[data-event="begin"]').last().waitFor();
    await h.shot('audit-paged');
    const limits = asked.map((u) => Number(new URL(u).searchParams.get('limit')));
    expect(Math.max(...limits)).to.equal(75);
  });

  it('works at phone width', async () => {
    await h.page.setViewportSize({ width: 390, height: 800 });
    try {
      const begun = await h.t.request('POST', '/api/transactions', { isolation_level: 'ReadCommitted' });
      const id = begun.body.transaction_id as string;
      await h.open(`/transactions?tx=${id}&audit_tx=${id}`);
      await h.page.locator(`tr[data-transaction="${id}"]`).waitFor();
      await h.page.locator('[data-testid="audit"] tr[data-event="begin"]').waitFor();
      await h.shot('transactions-phone');
      await h.open('/keys/new');
      await h.page.click('text=Add collection');
      await h.shot('key-new-phone');
    } finally {
      await h.page.setViewportSize({ width: 1100, height: 760 });
    }
  });
});
