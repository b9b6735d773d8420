import { expect } from 'chai';
import {
  checkHost, checkResolved, embeddedIpv4, hostPolicy, isNonPublicAddress, OutboundDenied, parseCidr, parseIp, proxyFor, proxyFromEnv,
} from '../../../lib/functions/outbound/index.js';
import { isOutboundHostEntry } from '../../../lib/engine/index.js';

const nonPublic = (ip: string) => isNonPublicAddress(parseIp(ip)!);

describe('outbound: IP addresses and the host policy', () => {
  it('parses IPv4 and IPv6 literals to bytes', () => {
    expect(parseIp('10.1.2.3')).to.deep.equal([10, 1, 2, 3]);
    expect(parseIp('::1')).to.deep.equal([...new Array(15).fill(0), 1]);
    expect(parseIp('[fe80::1]')!.slice(0, 2)).to.deep.equal([0xfe, 0x80]);
    expect(parseIp('::ffff:127.0.0.1')!.slice(10)).to.deep.equal([0xff, 0xff, 127, 0, 0, 1]);
    expect(parseIp('example.com')).to.equal(undefined);
    expect(parseIp('fe80::1%eth0')).to.equal(undefined);
  });

  it('denies loopback, private, link-local, metadata, unspecified and reserved addresses', () => {
    for (const ip of ['127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254',
      '0.0.0.0', '100.64.0.1', '224.0.0.1', '255.255.255.255', '::', '::1', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1']) {
      expect(nonPublic(ip), ip).to.equal(true);
    }
  });

  it('judges an IPv6 address that carries an IPv4 one by that address', () => {
    for (const ip of ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '::ffff:10.0.0.1', '64:ff9b::a00:1', '2002:7f00:1::', '::127.0.0.1']) {
      expect(nonPublic(ip), ip).to.equal(true);
    }
    expect(embeddedIpv4(parseIp('::ffff:8.8.8.8')!)).to.deep.equal([8, 8, 8, 8]);
    expect(nonPublic('::ffff:8.8.8.8')).to.equal(false);
  });

  it('allows public addresses', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '2a00:1450::1']) expect(nonPublic(ip), ip).to.equal(false);
  });

  it('parses CIDR ranges and refuses bad prefixes', () => {
    expect(parseCidr('10.0.0.0/8')).to.deep.equal({ bytes: [10, 0, 0, 0], prefix: 8 });
    expect(parseCidr('10.0.0.0/33')).to.equal(undefined);
    expect(parseCidr('fc00::/7')!.prefix).to.equal(7);
    expect(isOutboundHostEntry('10.0.0.0/33')).to.equal(false);
    expect(isOutboundHostEntry('*.corp.internal')).to.equal(true);
    expect(isOutboundHostEntry('::1')).to.equal(true);
    expect(isOutboundHostEntry('bad host')).to.equal(false);
  });

  it('denies literal private hosts and local names by default, and the allow-list opens them', () => {
    const deny = hostPolicy([], false);
    for (const h of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '169.254.169.254', '0.0.0.0', 'localhost', 'api.localhost', 'LOCALHOST.']) {
      expect(() => checkHost(deny, h), h).to.throw(OutboundDenied, /denied/);
    }
    expect(() => checkHost(deny, 'example.com')).not.to.throw();
    expect(() => checkHost(deny, '93.184.216.34')).not.to.throw();
    const allow = hostPolicy(['127.0.0.1', 'localhost', '10.0.0.0/8'], false);
    for (const h of ['127.0.0.1', 'localhost', '10.9.9.9', '[::ffff:10.1.1.1]']) expect(() => checkHost(allow, h), h).not.to.throw();
    expect(() => checkHost(allow, '127.0.0.2')).to.throw(OutboundDenied);
    expect(() => checkHost(hostPolicy([], true), '127.0.0.2')).not.to.throw();
  });

  it('filters resolved addresses at connect time and fails when none is allowed', () => {
    const deny = hostPolicy([], false);
    expect(checkResolved(deny, 'mixed.example', ['10.0.0.1', '8.8.8.8'])).to.deep.equal(['8.8.8.8']);
    expect(() => checkResolved(deny, 'rebind.example', ['127.0.0.1', '::1'])).to.throw(OutboundDenied, /rebind\.example.*127\.0\.0\.1/);
    expect(checkResolved(hostPolicy(['*.corp.internal'], false), 'db.corp.internal', ['10.0.0.5'])).to.deep.equal(['10.0.0.5']);
    expect(checkResolved(hostPolicy(['10.0.0.0/24'], false), 'db.corp', ['10.0.0.5', '10.0.1.5'])).to.deep.equal(['10.0.0.5']);
  });
});

describe('outbound: proxy variables', () => {
  const url = (u: string) => new URL(u);

  it('reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY, lower case winning', () => {
    const c = proxyFromEnv({ HTTP_PROXY: 'proxy:3128', https_proxy: 'http://sec:8080', HTTPS_PROXY: 'http://ignored:1', NO_PROXY: 'internal.corp, .svc,10.0.0.0/8 localhost:8080' });
    expect(c).to.deep.equal({ http: 'http://proxy:3128', https: 'http://sec:8080', noProxy: ['internal.corp', '.svc', '10.0.0.0/8', 'localhost:8080'] });
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
    expect(proxyFor(url('http://example.com/'), proxyFromEnv({ HTTP_PROXY: 'http://p:1', NO_PROXY: '*' }))).to.equal(undefined);
    expect(proxyFor(url('https://example.com/'), proxyFromEnv({ HTTP_PROXY: 'http://p:1' }))).to.equal(undefined);
  });
});
