import { expect } from 'chai';
import {
  addressRange,
  carriedIpv4,
  formatCidr,
  inCidr,
  isPublicAddress,
  parseCidr,
  parseIp,
} from '../../lib/outbound/index.js';

/**
 * Every spelling an outbound destination may take, with the range it falls in; only `unicast` may be reached by
 * default.
 */
const VERDICTS: ReadonlyArray<readonly [address: string, range: string, what: string]> = [
  // IPv4
  ['8.8.8.8', 'unicast', 'public'],
  ['1.1.1.1', 'unicast', 'public'],
  ['172.32.0.1', 'unicast', 'just past 172.16.0.0/12'],
  ['100.63.255.255', 'unicast', 'just below 100.64.0.0/10'],
  ['100.128.0.0', 'unicast', 'just past 100.64.0.0/10'],
  ['198.17.255.255', 'unicast', 'just below 198.18.0.0/15'],
  ['198.20.0.0', 'unicast', 'just past 198.18.0.0/15'],
  ['0.0.0.0', 'unspecified', 'this host'],
  ['0.1.2.3', 'unspecified', '"this network" 0.0.0.0/8'],
  ['10.0.0.1', 'private', 'RFC 1918'],
  ['172.16.0.1', 'private', 'RFC 1918'],
  ['172.31.255.255', 'private', 'RFC 1918, last address'],
  ['192.168.1.1', 'private', 'RFC 1918'],
  ['127.0.0.1', 'loopback', 'loopback'],
  ['127.255.0.9', 'loopback', 'anywhere in 127.0.0.0/8'],
  ['169.254.169.254', 'linkLocal', 'cloud metadata service'],
  ['100.64.0.1', 'carrierGradeNat', 'shared address space 100.64.0.0/10'],
  ['100.127.255.255', 'carrierGradeNat', 'shared address space, last address'],
  ['192.0.0.8', 'reserved', 'IETF protocol assignments 192.0.0.0/24'],
  ['192.0.2.1', 'reserved', 'documentation TEST-NET-1'],
  ['198.51.100.7', 'reserved', 'documentation TEST-NET-2'],
  ['203.0.113.9', 'reserved', 'documentation TEST-NET-3'],
  ['198.18.0.1', 'reserved', 'benchmarking 198.18.0.0/15'],
  ['198.19.255.255', 'reserved', 'benchmarking, last address'],
  ['192.88.99.1', 'reserved', 'deprecated 6to4 relay anycast'],
  ['240.0.0.1', 'reserved', 'class E'],
  ['224.0.0.1', 'multicast', 'multicast'],
  ['239.255.255.250', 'multicast', 'SSDP multicast'],
  ['255.255.255.255', 'broadcast', 'limited broadcast'],
  ['192.31.196.1', 'as112', 'AS112 DNS sink'],
  ['192.52.193.1', 'amt', 'AMT relay anycast'],
  // IPv6
  ['2606:4700:4700::1111', 'unicast', 'public'],
  ['2001:4860:4860::8888', 'unicast', 'public, in 2001::/16 but past 2001::/23'],
  ['2a00:1450::1', 'unicast', 'public'],
  ['::', 'unspecified', 'unspecified'],
  ['::1', 'loopback', 'loopback'],
  ['[::1]', 'loopback', 'bracketed as in a URL'],
  ['::ffff:127.0.0.1', 'loopback', 'IPv4-mapped loopback, dotted'],
  ['::ffff:7f00:1', 'loopback', 'IPv4-mapped loopback, hexadecimal'],
  ['::ffff:169.254.169.254', 'linkLocal', 'IPv4-mapped metadata service'],
  ['::ffff:10.0.0.1', 'private', 'IPv4-mapped private'],
  ['::ffff:8.8.8.8', 'unicast', 'IPv4-mapped public: judged by the IPv4 address'],
  ['::ffff:0:7f00:1', 'rfc6145', 'IPv4-translated ::ffff:0:0:0/96'],
  ['::ffff:0:808:808', 'rfc6145', 'IPv4-translated, even of a public address'],
  ['::127.0.0.1', 'ipv4Compatible', 'deprecated IPv4-compatible, dotted'],
  ['::7f00:1', 'ipv4Compatible', 'deprecated IPv4-compatible, hexadecimal'],
  ['::8.8.8.8', 'ipv4Compatible', 'IPv4-compatible is not IPv4-mapped, whatever the embedded address'],
  ['64:ff9b::7f00:1', 'loopback', 'NAT64 well-known prefix carrying loopback'],
  ['64:ff9b::a9fe:a9fe', 'linkLocal', 'NAT64 well-known prefix carrying the metadata service'],
  ['64:ff9b::a00:1', 'private', 'NAT64 well-known prefix carrying a private address'],
  ['64:ff9b::808:808', 'unicast', 'NAT64 well-known prefix carrying a public address (DNS64)'],
  ['64:ff9b:1::808:808', 'rfc6052', 'local-use NAT64 64:ff9b:1::/48'],
  ['2001::1', 'teredo', 'Teredo 2001::/32'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo', 'Teredo with a server and client inside'],
  ['2001:2::1', 'benchmarking', 'benchmarking 2001:2::/48'],
  ['2001:1::1', 'reserved', 'IETF protocol assignments 2001::/23'],
  ['2001:3::1', 'amt', 'AMT 2001:3::/32'],
  ['2001:4:112::1', 'as112v6', 'AS112-v6'],
  ['2001:10::1', 'deprecatedOrchid', 'ORCHID 2001:10::/28'],
  ['2001:20::1', 'orchid2', 'ORCHIDv2 2001:20::/28'],
  ['2001:db8::1', 'reserved', 'documentation 2001:db8::/32'],
  ['3fff::1', 'reserved', 'documentation 3fff::/20'],
  ['2002:7f00:1::', '6to4', '6to4 carrying loopback'],
  ['2002:808:808::1', '6to4', '6to4, even carrying a public address'],
  ['100::1', 'discard', 'discard-only 100::/64'],
  ['fc00::1', 'uniqueLocal', 'unique local fc00::/7'],
  ['fd12:3456::1', 'uniqueLocal', 'unique local fd00::/8'],
  ['fe80::1', 'linkLocal', 'link-local'],
  ['fe80::1%eth0', 'linkLocal', 'link-local with a zone id'],
  ['fec0::1', 'deprecatedSiteLocal', 'site-local fec0::/10'],
  ['ff02::1', 'multicast', 'link-local all nodes'],
  ['ff05::1:3', 'multicast', 'site-local multicast'],
  ['5f00::1', 'segmentRouting', 'SRv6 SIDs 5f00::/16'],
  ['100:0:0:1::1', 'reservedByIetf', 'outside 2000::/3 and every named range'],
  ['4000::1', 'reservedByIetf', 'unallocated, outside 2000::/3'],
  ['e000::1', 'reservedByIetf', 'unallocated, outside 2000::/3'],
];

describe('outbound: address classification', () => {
  for (const [address, range, what] of VERDICTS) {
    const verdict = range === 'unicast' ? 'allowed' : 'denied';
    it(`${address} (${what}) is ${range}: ${verdict}`, () => {
      const ip = parseIp(address);
      expect(ip, 'parses').not.to.equal(undefined);
      expect(addressRange(ip!)).to.equal(range);
      expect(isPublicAddress(ip!)).to.equal(range === 'unicast');
    });
  }

  it('reads only the standard spellings of an address', () => {
    for (const text of [
      '127.1',
      '0x7f.0.0.1',
      '017.0.0.1',
      '2130706433',
      'example.com',
      '1.2.3.4.5',
      '::ffff:1.2.3',
      '[127.0.0.1',
      '',
    ]) {
      expect(parseIp(text), text).to.equal(undefined);
    }
  });

  it('finds the IPv4 address that a mapped or NAT64 address stands for, and no other', () => {
    expect(carriedIpv4(parseIp('::ffff:10.1.2.3')!)?.toString()).to.equal('10.1.2.3');
    expect(carriedIpv4(parseIp('64:ff9b::a01:203')!)?.toString()).to.equal('10.1.2.3');
    for (const text of ['::a01:203', '2002:a01:203::', '64:ff9b:1::a01:203', '10.1.2.3'])
      expect(carriedIpv4(parseIp(text)!), text).to.equal(undefined);
  });

  it('parses CIDR ranges and bare addresses, refusing bad prefixes', () => {
    expect(formatCidr(parseCidr('10.0.0.0/8')!)).to.equal('10.0.0.0/8');
    expect(formatCidr(parseCidr('fc00::/7')!)).to.equal('fc00::/7');
    expect(formatCidr(parseCidr('192.168.1.9')!)).to.equal('192.168.1.9/32');
    expect(formatCidr(parseCidr('[::1]')!)).to.equal('::1/128');
    for (const text of ['10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/-1', '10.0.0.0/8/8', '10.0.0/8', 'corp/8'])
      expect(parseCidr(text), text).to.equal(undefined);
  });

  it('matches addresses to networks, an address carrying IPv4 by that address too', () => {
    const net = (t: string) => parseCidr(t)!;
    const ip = (t: string) => parseIp(t)!;
    expect(inCidr(ip('10.9.9.9'), net('10.0.0.0/8'))).to.equal(true);
    expect(inCidr(ip('11.0.0.1'), net('10.0.0.0/8'))).to.equal(false);
    expect(inCidr(ip('::ffff:10.9.9.9'), net('10.0.0.0/8'))).to.equal(true);
    expect(inCidr(ip('64:ff9b::a09:909'), net('10.0.0.0/8'))).to.equal(true);
    expect(inCidr(ip('64:ff9b::a09:909'), net('64:ff9b::/96'))).to.equal(true);
    expect(inCidr(ip('10.9.9.9'), net('::ffff:10.0.0.0/104'))).to.equal(true);
    expect(inCidr(ip('fd00::5'), net('fd00::/8'))).to.equal(true);
    expect(inCidr(ip('10.9.9.9'), net('fd00::/8'))).to.equal(false);
    expect(inCidr(ip('2002:a09:909::'), net('10.0.0.0/8'))).to.equal(false);
  });
});
