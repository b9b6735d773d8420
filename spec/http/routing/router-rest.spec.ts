import { expect } from 'chai';
import { Router } from '../../../lib/http/routing/router.js';

describe('router: rest parameters', () => {
  const router = new Router([
    { method: 'GET', path: '/api/route/:path+', target: 'rest' },
    { method: 'GET', path: '/api/route/fixed', target: 'fixed' },
    { method: 'POST', path: '/api/route/:path+', target: 'rest-post' },
  ]);

  it('takes one or more remaining segments, each decoded, joined by /', () => {
    expect(router.match('GET', '/api/route/users/42')).to.deep.include({
      target: 'rest',
      params: { path: 'users/42' },
    });
    expect(router.match('GET', '/api/route/a%20b')).to.deep.include({ params: { path: 'a b' } });
    expect(router.match('POST', '/api/route/x/y/z').target).to.equal('rest-post');
  });

  it('tries fixed-length routes first, and needs at least one segment', () => {
    expect(router.match('GET', '/api/route/fixed').target).to.equal('fixed');
    expect(() => router.match('GET', '/api/route')).to.throw(/No route/);
    expect(() => router.match('GET', '/api/route/')).to.throw(/No route/);
  });

  it('answers 405 for a known rest path with another method', () => {
    expect(() => router.match('PATCH', '/api/route/users/1')).to.throw('Method Not Allowed');
  });
});
