import { expect } from 'chai';
import {
  checkEveryResolved,
  checkHost,
  checkResolved,
  hostPolicy,
  needsResolution,
  OutboundDenied,
  proxyFor,
  proxyFromEnv,
} from '../../lib/outbound/index.js';
import { isOutboundHostEntry } from '../../lib/engine/index.js';

describe('outbound: the host policy', () => {
  it('takes host names, wildcards, addresses and CIDR ranges as allow-list entries', () => {
    expect(isOutboundHostEntry('10.0.0.0/33')).to.equal(false);
    expect(isOutboundHostEntry('*.corp.internal')).to.equal(true);
    expect(isOutboundHostEntry('::1')).to.equal(true);
    expect(isOutboundHostEntry('bad host')).to.equal(false);
  });

  it('denies literal private hosts and local names by default, and the allow-list opens them', () => {
    const deny = hostPolicy([], false);
    for (const h of [
      '127.0.0.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '169.254.169.254',
      '0.0.0.0',
      'localhost',
      'api.localhost',
      'LOCALHOST.',
    ]) {
      expect(() => checkHost(deny, h), h).to.throw(OutboundDenied, /denied/);
    }
    expect(() => checkHost(deny, 'example.com')).not.to.throw();
    expect(() => checkHost(deny, '93.184.216.34')).not.to.throw();
    const allow = hostPolicy(['127.0.0.1', 'localhost', '10.0.0.0/8'], false);
    for (const h of ['127.0.0.1', 'localhost', '10.9.9.9', '[::ffff:10.1.1.1]'])
      expect(() => checkHost(allow, h), h).not.to.throw();
    expect(() => checkHost(allow, '127.0.0.2')).to.throw(OutboundDenied);
    expect(() => checkHost(hostPolicy([], true), '127.0.0.2')).not.to.throw();
  });

  it('filters resolved addresses at connect time and fails when none is allowed', () => {
    const deny = hostPolicy([], false);
    expect(checkResolved(deny, 'mixed.example', ['10.0.0.1', '8.8.8.8'])).to.deep.equal(['8.8.8.8']);
    expect(() => checkResolved(deny, 'rebind.example', ['127.0.0.1', '::1'])).to.throw(
      OutboundDenied,
      /rebind\.example.*127\.0\.0\.1.*loopback range/,
    );
    expect(checkResolved(hostPolicy(['*.corp.internal'], false), 'db.corp.internal', ['10.0.0.5'])).to.deep.equal([
      '10.0.0.5',
    ]);
    expect(checkResolved(hostPolicy(['10.0.0.0/24'], false), 'db.corp', ['10.0.0.5', '10.0.1.5'])).to.deep.equal([
      '10.0.0.5',
    ]);
  });

  it('through a proxy, requires every resolved address to be allowed', () => {
    const deny = hostPolicy([], false);
    expect(() => checkEveryResolved(deny, 'public.example', ['8.8.8.8', '2606:4700:4700::1111'])).not.to.throw();
    expect(() => checkEveryResolved(deny, 'mixed.example', ['8.8.8.8', '169.254.169.254'])).to.throw(
      OutboundDenied,
      /'mixed\.example' \(169\.254\.169\.254\) denied \(linkLocal range\)/,
    );
    expect(() => checkEveryResolved(deny, 'mapped.example', ['::ffff:10.0.0.1'])).to.throw(
      OutboundDenied,
      /private range/,
    );
    expect(() =>
      checkEveryResolved(hostPolicy(['10.0.0.0/8'], false), 'db.corp', ['10.0.0.5', '10.1.0.5']),
    ).not.to.throw();
    expect(() => checkEveryResolved(hostPolicy(['db.corp'], false), 'db.corp', ['127.0.0.1'])).not.to.throw();
    expect(() => checkEveryResolved(hostPolicy([], true), 'db.corp', ['127.0.0.1', 'fd00::1'])).not.to.throw();
  });

  it('asks for a name to be resolved before a proxy only when its addresses could be denied', () => {
    const deny = hostPolicy(['api.partner.example', '*.corp.internal', '10.0.0.0/8'], false);
    expect(needsResolution(deny, 'metadata.example')).to.equal(true);
    expect(needsResolution(deny, 'db.example.')).to.equal(true);
    expect(needsResolution(deny, 'API.partner.example')).to.equal(false);
    expect(needsResolution(deny, 'x.corp.internal')).to.equal(false);
    expect(needsResolution(deny, '8.8.8.8')).to.equal(false);
    expect(needsResolution(deny, '[::1]')).to.equal(false);
    expect(needsResolution(hostPolicy([], true), 'metadata.example')).to.equal(false);
  });
});

describe('outbound: proxy variables', () => {
  const url = (u: string) => new URL(u);

  it('reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY, lower case winning', () => {
    const c = proxyFromEnv({
      HTTP_PROXY: 'proxy:3128',
      https_proxy: 'http://sec:8080',
      HTTPS_PROXY: 'http://ignored:1',
      NO_PROXY: 'internal.corp, .svc,10.0.0.0/8 localhost:8080',
    });
    expect(c).to.deep.equal({
      http: 'http://proxy:3128',
      https: 'http://sec:8080',
      noProxy: ['internal.corp', '.svc', '10.0.0.0/8', 'localhost:8080'],
    });
    expect(proxyFor(url('http://example.com/'), c)).to.equal('http://proxy:3128');
    expect(proxyFor(url('https://example.com/'), c)).to.equal('http://sec:8080');
    expect(proxyFor(url('http://internal.corp/'), c)).to.equal(undefined);
    expect(proxyFor(url('http://a.internal.corp/'), c)).to.equal(undefined);
    expect(proxyFor(url('http://notinternal.corp/'), c)).to.equal('http://proxy:3128');
    expect(proxyFor(url('http://x.svc/'), c)).to.equal(undefined);
    expect(proxyFor(url('http://10.2.3.4/'), c)).to.equal(undefined);
    expect(proxyFor(url('http://localhost:8080/'), c)).to.equal(undefined);
    expect(proxyFor(url('http://localhost:9090/'), c)).to.equal('http://proxy:3128');
  });

  it('goes direct without variables, and for every host with NO_PROXY=*', () => {
    expect(proxyFor(url('http://example.com/'), proxyFromEnv({}))).to.equal(undefined);
    expect(proxyFor(url('http://example.com/'), proxyFromEnv({ HTTP_PROXY: 'http://p:1', NO_PROXY: '*' }))).to.equal(
      undefined,
    );
    expect(proxyFor(url('https://example.com/'), proxyFromEnv({ HTTP_PROXY: 'http://p:1' }))).to.equal(undefined);
  });
});
