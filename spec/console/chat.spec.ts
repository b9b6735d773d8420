/**
 * The console's chat pages in a real headless Chromium with the offline `local` provider: providers and their
 * status, a session over a seeded collection, an answer streamed in token by token with its context snippets,
 * branching from a message, merging sessions, deleting one, phone width, and a key that may not chat.
 */
import { expect } from 'chai';
import { consoleHarness } from '../helpers/console-browser.js';
import {
  FIRST_WORDS,
  LAST_WORDS,
  SLOW_MODEL,
  startSlowProvider,
  type SlowProvider,
} from '../helpers/slow-chat-provider.js';

const DOCS = [
  { id: 'd1', title: 'Eddies', body: 'An eddy is a swirl of water in a river, turning against the current' },
  { id: 'd2', title: 'Rivers', body: 'Rivers flow to the sea and carry sand' },
  { id: 'd3', title: 'Tides', body: 'Tides rise and fall twice a day' },
];

/** Records the streamed answer's text length at every DOM change, so the test can see it grow. */
const WATCH_STREAM = `
  window.__lengths = [];
  new MutationObserver(() => {
    const el = document.querySelector('[data-testid="streaming-answer"]');
    if (!el) return;
    const n = el.textContent.length;
    const seen = window.__lengths;
    if (seen[seen.length - 1] !== n) seen.push(n);
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
`;

describe('browser console: chat (headless chromium, local provider)', function () {
  this.timeout(30_000);
  const h = consoleHarness({
    seed: async (t) => {
      await t.request('POST', '/api/batch/insert/docs', { inserts: DOCS.map((data) => ({ data })) });
    },
  });
  let slow: SlowProvider;
  before(async () => {
    slow = await startSlowProvider();
  });
  after(async () => {
    await slow?.close();
  });
  let first = '';
  let branch = '';

  it('shows the providers: local is ready offline, the others not configured', async () => {
    await h.page.click('nav a[href="/chat"]');
    await h.page.locator('tr[data-provider="local"] [data-status="ok"]').waitFor();
    expect(await h.page.locator('tr[data-provider="openai"] [data-status]').getAttribute('data-status')).to.equal(
      'not_configured',
    );
    expect(await h.page.locator('tr[data-provider="local"]').textContent()).to.include('eddydb-local');
    await h.page.getByText('No sessions yet').waitFor();
    await h.shot('chat');
  });

  it('creates a session with the local provider over the seeded collection', async () => {
    await h.page.selectOption('#chat-provider', 'local');
    await h.page.fill('#chat-title', 'Eddy questions');
    await h.page.check('input[name="chat-collection"][value="docs"]');
    await h.page.fill('#chat-system-prompt', 'Answer from the documents.');
    await h.page.click('button:has-text("Create session")');
    await h.page.waitForURL(/\/chat\/[^/]+$/);
    first = decodeURIComponent(new URL(h.page.url()).pathname.split('/')[2]!);
    await h.page.locator('h1', { hasText: 'Eddy questions' }).waitFor();
    expect(await h.page.locator('[data-testid="session-provider"]').textContent()).to.include('Local');
    await h.page.getByText('No messages yet').waitFor();
  });

  it('streams the answer in as it is written, then shows it stored with its context snippets', async () => {
    await h.page.evaluate(WATCH_STREAM);
    // A slow link (1 KB/s) delivers the frames over about a second, so the page must show them as they come: on a
    // fast one, a loaded machine may hand the whole stream to the reader at once.
    const cdp = await h.page.context().newCDPSession(h.page);
    await cdp.send('Network.enable');
    const slow = { offline: false, latency: 20, downloadThroughput: 1024, uploadThroughput: -1 };
    await cdp.send('Network.emulateNetworkConditions', slow);
    await h.page.fill('#chat-message', 'what is an eddy in a river');
    await h.page.click('button:has-text("Send")');
    await h.page.locator('[data-testid="streaming-answer"]', { hasText: 'Question' }).waitFor();
    const stored = h.page.locator('.chat-log li.chat-msg.assistant:not(.pending)');
    await stored.filter({ hasText: 'Question: what is an eddy in a river' }).waitFor({ timeout: 15_000 });
    await cdp.send('Network.emulateNetworkConditions', { ...slow, latency: 0, downloadThroughput: -1 });
    await cdp.detach();
    const lengths = (await h.page.evaluate('window.__lengths')) as number[];
    // Part of the answer was on screen before the whole of it: the page showed the stream as it came in.
    const whole = lengths[lengths.length - 1] ?? 0;
    const partial = lengths.filter((n) => n > 0 && n < whole);
    expect(partial.length, `lengths seen: ${lengths.join(',')}`).to.be.greaterThan(0);
    expect(await stored.textContent()).to.include('Context:');
    const link = stored.locator('[data-testid="snippets"] a[href="/collections/docs/records/d1"]');
    await link.waitFor();
    expect(await stored.locator('[data-testid="snippets"] li[data-collection="docs"]').count()).to.be.greaterThan(0);
    // The count is read again once the stream has ended: wait for it rather than reading it at once.
    await h.page.locator('[data-testid="message-count"]').filter({ hasText: /^2$/ }).waitFor();
    await h.shot('chat-conversation');
  });

  it('branches from the first message into a new session that holds it', async () => {
    await h.page.click('button[aria-label="Branch from here, message 1"]');
    await h.page.waitForURL((u) => u.pathname.startsWith('/chat/') && !u.pathname.endsWith(encodeURIComponent(first)));
    branch = decodeURIComponent(new URL(h.page.url()).pathname.split('/')[2]!);
    const from = h.page.locator('[data-testid="branched-from"]');
    await from.waitFor();
    await from.locator(`a[href="/chat/${encodeURIComponent(first)}"]`, { hasText: 'Eddy questions' }).waitFor();
    await h.page.locator('.chat-log li.chat-msg').first().waitFor();
    expect(await h.page.locator('.chat-log li.chat-msg').count()).to.equal(1);
    expect(await h.page.locator('.chat-log li.chat-msg.user').textContent()).to.include('what is an eddy');
    await h.page.fill('#chat-message', 'do tides rise');
    await h.page.click('button:has-text("Send")');
    await h.page
      .locator('.chat-log li.chat-msg.assistant:not(.pending)', { hasText: 'Question: do tides rise' })
      .waitFor();
    await h.shot('chat-branch');
  });

  it('merges the two sessions into a new one from the sessions list', async () => {
    await h.page.click('nav a[href="/chat"]');
    const rows = h.page.locator('[data-testid="sessions"] tbody tr');
    await rows.nth(1).waitFor();
    expect(await rows.count()).to.equal(2);
    await h.page.check(`tr[data-chat="${first}"] input[type="checkbox"]`);
    await h.page.check(`tr[data-chat="${branch}"] input[type="checkbox"]`);
    await h.page.selectOption('#merge-strategy', 'Chronological');
    await h.shot('chat-sessions');
    await h.page.click('button:text-is("Merge")');
    await h.page.waitForURL((u) => {
      const id = decodeURIComponent(u.pathname.split('/')[2] ?? '');
      return u.pathname.startsWith('/chat/') && id !== first && id !== branch;
    });
    await h.page.locator('h1', { hasText: 'Merged: ' }).waitFor();
    await h.page.locator('.chat-log li.chat-msg').nth(3).waitFor();
    const text = await h.page.locator('.chat-log').textContent();
    expect(text).to.include('Question: what is an eddy');
    expect(text).to.include('Question: do tides rise');
    await h.shot('chat-merged');
  });

  it('merges another session into the one on screen', async () => {
    await h.open(`/chat/${encodeURIComponent(first)}`);
    await h.page.locator('.chat-log li.chat-msg').nth(1).waitFor();
    await h.page.locator(`#merge-source option[value="${branch}"]`).waitFor({ state: 'attached' });
    await h.page.selectOption('#merge-source', branch);
    await h.page.selectOption('#merge-into-strategy', 'LatestOnly');
    await h.page.click('button:has-text("Merge into this session")');
    await h.page.locator('[role="status"]', { hasText: 'Merged' }).waitFor();
    await h.page.locator('.chat-log', { hasText: 'Question: do tides rise' }).waitFor();
  });

  it('deletes a session after confirming', async () => {
    await h.open('/chat');
    const row = h.page.locator(`tr[data-chat="${branch}"]`);
    await row.waitFor();
    await row.locator('button.danger:text-is("Delete")').click();
    await h.page.locator('dialog[open] button:has-text("Delete session")').click();
    await row.waitFor({ state: 'detached' });
  });

  it("shows a provider's failure that arrives in the stream, and keeps the message to send again", async () => {
    // A configured provider that cannot be reached (a closed local port): the stream opens, then ends in an error.
    await h.t.request('PUT', '/api/config', { openai_compatible_url: 'http://127.0.0.1:9' });
    const made = await h.t.request('POST', '/api/chat', {
      llm_provider: 'openai_compatible',
      llm_model: 'nowhere',
      title: 'Unreachable provider',
      collections: [],
    });
    await h.open(`/chat/${encodeURIComponent((made.body as { chat_id: string }).chat_id)}`);
    await h.page.fill('#chat-message', 'is anyone there');
    await h.page.click('button:has-text("Send")');
    const alert = h.page.locator('[role="alert"]', { hasText: 'provider_' });
    await alert.waitFor();
    expect(await alert.textContent()).to.include('openai_compatible');
    expect(await h.page.inputValue('#chat-message')).to.equal('is anyone there');
    expect(await h.page.locator('.chat-log li.chat-msg').count()).to.equal(0);
    await h.shot('chat-stream-error');
    await h.open('/chat');
    const status = h.page.locator('tr[data-provider="openai_compatible"] [data-status]');
    await status.filter({ hasNotText: 'Not configured' }).waitFor();
    await h.shot('chat-provider-failing');
  });

  it("shows a provider's words while its stream is still open, and stops a stream midway", async () => {
    await h.t.request('PUT', '/api/config', {
      openai_compatible_url: slow.url,
      outbound_allow_hosts: ['127.0.0.1'],
    });
    await h.open('/chat');
    await h.page.locator('tr[data-provider="openai_compatible"] [data-status="ok"]').waitFor();
    await h.page.selectOption('#chat-provider', 'openai_compatible');
    await h.page.fill('#chat-model', SLOW_MODEL);
    await h.page.fill('#chat-title', 'Slow provider');
    await h.page.click('button:has-text("Create session")');
    await h.page.locator('h1', { hasText: 'Slow provider' }).waitFor();

    await h.page.fill('#chat-message', 'say something slowly');
    await h.page.click('button:has-text("Send")');
    const answer = h.page.locator('[data-testid="streaming-answer"]');
    await answer.filter({ hasText: FIRST_WORDS }).waitFor();
    // The provider holds the rest back: these words are on screen while the stream is open.
    expect(await answer.textContent()).not.to.include(LAST_WORDS.trim());
    expect(await h.page.locator('button:text-is("Stop")').isVisible()).to.equal(true);
    await h.shot('chat-streaming');
    slow.release();
    await h.page
      .locator('.chat-log li.chat-msg.assistant:not(.pending)', { hasText: FIRST_WORDS + LAST_WORDS })
      .waitFor();
    // The count is read again once the stream has ended: wait for it rather than reading it at once.
    await h.page.locator('[data-testid="message-count"]').filter({ hasText: /^2$/ }).waitFor();

    await h.page.fill('#chat-message', 'and now stop');
    await h.page.click('button:has-text("Send")');
    await answer.filter({ hasText: FIRST_WORDS }).waitFor();
    await h.page.click('button:text-is("Stop")');
    await h.page.locator('[role="alert"]', { hasText: 'Stopped before the whole answer arrived' }).waitFor();
    await answer.waitFor({ state: 'detached' });
    // The server dropped the turn when the browser went away: nothing more was stored.
    await h.page.reload();
    await h.page.locator('.chat-log li.chat-msg').nth(1).waitFor();
    expect(await h.page.locator('.chat-log li.chat-msg').count()).to.equal(2);
    slow.release();
  });

  it('works at phone width', async () => {
    await h.page.setViewportSize({ width: 390, height: 800 });
    await h.open(`/chat/${encodeURIComponent(first)}`);
    await h.page.locator('[data-testid="snippets"]').first().waitFor();
    await h.shot('chat-conversation-phone');
    await h.open('/chat');
    await h.page.locator('[data-testid="sessions"] tbody tr').first().waitFor();
    await h.shot('chat-phone');
    await h.page.setViewportSize({ width: 1100, height: 760 });
  });

  it('disables chat for a key that may only read the documents', async () => {
    const made = await h.t.request('POST', '/api/auth/keys', {
      name: 'docs-reader',
      collection_permissions: { docs: { read: true, write: false } },
    });
    await h.signIn((made.body as { key: string }).key);
    await h.open('/chat');
    const create = h.page.locator('button:has-text("Create session")');
    await create.waitFor();
    expect(await create.isDisabled()).to.equal(true);
    expect(await create.getAttribute('title')).to.include('may not');
    await h.page.locator('tr[data-provider="local"] [data-status="ok"]').waitFor();
    await h.shot('chat-restricted');
  });
});
