import { expect } from 'chai';
import { closeOutboundPools } from '../../lib/outbound/index.js';
import { swrSettled } from '../../lib/functions/index.js';
import { bare, TestServer } from '../helpers/test-server.js';
import { startLocalHttp, type LocalHttp } from '../helpers/local-http.js';

describe('HTTP: outbound function steps and their settings', () => {
  let s: TestServer;
  let api: LocalHttp;
  beforeEach(async () => {
    s = await TestServer.start();
    api = await startLocalHttp();
  });
  afterEach(async () => {
    await swrSettled(s.server.db.kv);
    await api.close();
    await s.stop();
  });
  after(async () => {
    await closeOutboundPools();
  });

  it('validates the outbound and SMTP settings in PUT /api/config and never shows smtp_password', async () => {
    const bad = await s.request('PUT', '/api/config', { outbound_allow_hosts: ['10.0.0.0/33'] });
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.match(/outbound_allow_hosts.*10\.0\.0\.0\/33/);
    expect((await s.request('PUT', '/api/config', { outbound_allow_hosts: 'localhost' })).status).to.equal(400);
    expect((await s.request('PUT', '/api/config', { smtp_port: 0 })).status).to.equal(400);
    const ok = await s.request('PUT', '/api/config', {
      outbound_allow_hosts: ['127.0.0.1', '*.corp.internal', 'fc00::/7'],
      smtp_host: 'mail.example.com',
      smtp_password: 'very-secret-pass',
    });
    expect(ok.status).to.equal(200);
    const config = await s.request('GET', '/api/config');
    expect(config.body).to.deep.include({
      outbound_allow_hosts: ['127.0.0.1', '*.corp.internal', 'fc00::/7'],
      outbound_allow_private: false,
      smtp_host: 'mail.example.com',
      smtp_password_set: true,
    });
    expect(config.text).not.to.include('very-secret-pass');
  });

  it('runs HttpRequest in a called function once loopback is allowed', async () => {
    api.handler = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: req.url.split('/').pop(), title: 'Post' }));
    };
    await s.request('POST', '/api/functions', {
      label: 'fetch_post',
      name: 'fetch',
      parameters: { id: { required: true } },
      functions: [{ type: 'HttpRequest', url: `${api.url}/posts/{{id}}` }],
    });
    const denied = await s.request('POST', '/api/functions/fetch_post', { id: 1 });
    expect(denied.status).to.equal(400);
    expect(denied.body).to.deep.include({ error: true, operation_index: 0, operation_type: 'HttpRequest' });
    expect(denied.body.message).to.match(/'127\.0\.0\.1' denied/);
    await s.request('PUT', '/api/config', { outbound_allow_hosts: ['127.0.0.1'] });
    const r = await s.request('POST', '/api/functions/fetch_post', { id: 1 });
    expect(r.status).to.equal(200);
    const record = bare(r.body.records[0]);
    expect(record.http_response).to.deep.equal({ id: '1', title: 'Post' });
    expect(record.http_response_status).to.equal(200);
  });

  it('runs SWR, answering from the cache on the second call', async () => {
    await s.request('PUT', '/api/config', { outbound_allow_hosts: ['127.0.0.1'] });
    await s.request('POST', '/api/functions', {
      label: 'cached',
      name: 'cached',
      parameters: {},
      functions: [{ type: 'SWR', cache_key: 'cfg', ttl: '5m', url: `${api.url}/config`, output_field: 'data' }],
    });
    const first = await s.request('POST', '/api/functions/cached', {});
    const second = await s.request('POST', '/api/functions/cached', {});
    expect(bare(first.body.records[0]).data).to.deep.equal({ ok: true });
    expect(bare(second.body.records[0]).data).to.deep.equal({ ok: true });
    expect(api.seen).to.have.length(1);
  });
});
