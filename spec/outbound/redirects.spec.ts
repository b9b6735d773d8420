import { expect } from 'chai';
import { OutboundDenied, redirectedRequest, type HopRequest } from '../../lib/outbound/index.js';

const HEADERS = {
  accept: 'application/json',
  'accept-encoding': 'gzip',
  'accept-language': 'fr',
  'user-agent': 'EddyDB',
  authorization: 'Bearer s3cret',
  cookie: 'sid=1',
  'x-api-key': 'k',
  'content-type': 'application/json',
  'content-encoding': 'identity',
};
const FROM = new URL('https://api.example.com/start');
const SAME = new URL('https://api.example.com/next');

const request = (method: string): HopRequest => ({
  method,
  headers: HEADERS,
  ...(method === 'GET' || method === 'HEAD' ? {} : { body: '{"a":1}' }),
});

/** status, method -> method sent next and whether the body goes along, as the Fetch standard and curl do. */
const METHODS: ReadonlyArray<readonly [status: number, method: string, next: string, keepsBody: boolean]> = [
  [301, 'POST', 'GET', false],
  [302, 'POST', 'GET', false],
  [303, 'POST', 'GET', false],
  [301, 'PUT', 'PUT', true],
  [302, 'DELETE', 'DELETE', true],
  [303, 'PUT', 'GET', false],
  [303, 'PATCH', 'GET', false],
  [303, 'DELETE', 'GET', false],
  [303, 'HEAD', 'HEAD', false],
  [303, 'GET', 'GET', false],
  [307, 'POST', 'POST', true],
  [308, 'POST', 'POST', true],
  [307, 'PUT', 'PUT', true],
  [308, 'GET', 'GET', false],
];

describe('outbound: what a followed redirect sends', () => {
  for (const [status, method, next, keepsBody] of METHODS) {
    it(`a ${status} after ${method} sends ${next}${keepsBody ? ' with the body' : ''}`, () => {
      const r = redirectedRequest(status, FROM, SAME, request(method));
      expect(r.method).to.equal(next);
      expect(r.body).to.equal(keepsBody ? '{"a":1}' : undefined);
      expect('content-type' in r.headers, 'content-type follows the body').to.equal(keepsBody);
      expect('content-encoding' in r.headers, 'content-encoding follows the body').to.equal(keepsBody);
    });
  }

  it('keeps every header on the same origin', () => {
    expect(redirectedRequest(307, FROM, SAME, request('POST')).headers).to.deep.equal(HEADERS);
  });

  it('keeps only the safe headers on another origin: another host, scheme or port', () => {
    for (const to of [
      'https://other.example.com/x',
      'https://api.example.com:8443/x',
      'http://other.example.com/x',
    ].map((u) => new URL(u))) {
      const from = to.protocol === 'http:' ? new URL('http://api.example.com/start') : FROM;
      const moved = redirectedRequest(302, from, to, request('GET'));
      expect(moved.headers, to.href).to.deep.equal({
        accept: 'application/json',
        'accept-encoding': 'gzip',
        'accept-language': 'fr',
        'user-agent': 'EddyDB',
      });
    }
    const kept = redirectedRequest(308, FROM, new URL('https://other.example.com/x'), request('POST'));
    expect(kept.headers).to.deep.equal({
      accept: 'application/json',
      'accept-encoding': 'gzip',
      'accept-language': 'fr',
      'user-agent': 'EddyDB',
      'content-type': 'application/json',
      'content-encoding': 'identity',
    });
    expect(kept.body).to.equal('{"a":1}');
  });

  it('refuses a redirect from https to http, and follows http to https', () => {
    expect(() => redirectedRequest(302, FROM, new URL('http://api.example.com/next'), request('GET'))).to.throw(
      OutboundDenied,
      /from https 'api\.example\.com' to http 'api\.example\.com' refused/,
    );
    const up = redirectedRequest(301, new URL('http://api.example.com/'), FROM, request('GET'));
    expect(up.headers).not.to.have.property('authorization');
    expect(up.method).to.equal('GET');
  });
});
