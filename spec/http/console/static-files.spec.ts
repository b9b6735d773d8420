import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { contentSecurityPolicy, isConsoleRequest, resolveConsolePath } from '../../../lib/http/console/index.js';
import { TestServer } from '../../helpers/test-server.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

describe('console static files', () => {
  let root: string;
  before(() => {
    root = tempDir('eddydb-console-');
    mkdirSync(path.join(root, 'assets'));
    writeFileSync(path.join(root, 'index.html'), '<!doctype html>');
    writeFileSync(path.join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
  });
  after(() => removeDir(root));

  it('leaves /api to the API', () => {
    expect(isConsoleRequest('GET', '/api/health')).to.equal(false);
    expect(isConsoleRequest('GET', '/api')).to.equal(false);
    expect(isConsoleRequest('GET', '/metrics', '*/*')).to.equal(false);
    expect(isConsoleRequest('GET', '/metrics?x=1')).to.equal(false);
    expect(isConsoleRequest('POST', '/')).to.equal(false);
    expect(isConsoleRequest('GET', '/')).to.equal(true);
    expect(isConsoleRequest('HEAD', '/collections/users')).to.equal(true);
    expect(isConsoleRequest('GET', '/x', 'text/html,application/xhtml+xml')).to.equal(true);
    expect(isConsoleRequest('GET', '/x', 'application/json')).to.equal(false);
  });

  it('maps console routes to index.html and assets to their files', () => {
    expect(resolveConsolePath(root, '/')).to.equal('page');
    expect(resolveConsolePath(root, '/collections/users?skip=20')).to.equal('page');
    expect(resolveConsolePath(root, '/assets/index-abc123.js')).to.equal(path.join(root, 'assets', 'index-abc123.js'));
  });

  it('refuses missing assets, traversal and malformed escapes', () => {
    expect(resolveConsolePath(root, '/assets/missing.js')).to.equal(undefined);
    expect(resolveConsolePath(root, '/assets/../../etc/passwd')).to.equal(undefined);
    expect(resolveConsolePath(root, '/assets/%2e%2e/%2e%2e/etc/passwd')).to.equal(undefined);
    expect(resolveConsolePath(root, '/assets/%E0%A4%A')).to.equal(undefined);
    expect(resolveConsolePath(root, '/assets/..%5c..%5cx.js')).to.equal(undefined);
    expect(resolveConsolePath(root, '/favicon.ico')).to.equal(undefined);
  });

  it('allows only its own origin and WebSocket', () => {
    const csp = contentSecurityPolicy('127.0.0.1:8080');
    expect(csp).to.include("default-src 'self'");
    expect(csp).to.include("script-src 'self'");
    expect(csp).to.include("connect-src 'self' ws://127.0.0.1:8080 wss://127.0.0.1:8080");
    expect(contentSecurityPolicy('evil.com; script-src *')).to.include("connect-src 'self';");
  });

  describe('served by the server', () => {
    let t: TestServer;
    before(async () => {
      t = await TestServer.start({ memory: true });
    });
    after(() => t.stop());

    it('answers / with a page under a strict policy, and /api as before', async () => {
      const page = await fetch(`${t.url}/collections/users`);
      expect([200, 404]).to.include(page.status);
      expect(page.headers.get('content-type')).to.match(/^text\/html/);
      expect(page.headers.get('content-security-policy')).to.include("default-src 'self'");
      expect(page.headers.get('x-content-type-options')).to.equal('nosniff');
      const api = await fetch(`${t.url}/api/no-such-route`);
      expect(api.status).to.equal(404);
      expect(api.headers.get('content-type')).to.match(/json/);
    });

    it('answers an unknown asset with 404', async () => {
      const res = await fetch(`${t.url}/assets/no-such-file.js`);
      expect(res.status).to.equal(404);
    });

    it('leaves GET /metrics to the API for a scraper that accepts anything', async () => {
      const headers = { Accept: '*/*', Authorization: `Bearer ${await t.adminToken()}` };
      const res = await fetch(`${t.url}/metrics`, { headers });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.include('text/plain');
      expect(await res.text()).to.include('eddydb_http_requests_total');
    });
  });
});
