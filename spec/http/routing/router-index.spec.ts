import { expect } from 'chai';
import { Router } from '../../../lib/http/routing/router.js';
import { ROUTES } from '../../../lib/http/routing/routes.js';

/**
 * The answer the router gives, computed the slow way: every fixed-length route in table order, then every rest route.
 */
function reference(method: string, path: string): string {
  const segments = path.split('/').slice(1);
  if (segments.length > 1 && segments[segments.length - 1] === '') segments.pop();
  let pathMatched = false;
  const isRest = (p: string) => p.endsWith('+');
  for (const r of [...ROUTES.filter((x) => !isRest(x.path)), ...ROUTES.filter((x) => isRest(x.path))]) {
    const parts = r.path.split('/').slice(1);
    const rest = parts[parts.length - 1]!.endsWith('+');
    if (rest ? parts.length > segments.length : parts.length !== segments.length) continue;
    const ok =
      parts.every((p, i) => (p.startsWith(':') ? segments[i] !== '' : p === segments[i])) &&
      (!rest || segments.slice(parts.length - 1).some((s) => s !== ''));
    if (!ok) continue;
    pathMatched = true;
    if (r.method === method || (method === 'HEAD' && r.method === 'GET')) return r.target.procedure;
  }
  return pathMatched ? '405' : '404';
}

function answer(router: Router<{ procedure: string }>, method: string, path: string): string {
  try {
    return router.match(method, path).target.procedure;
  } catch (err) {
    return (err as Error).message === 'Method Not Allowed' ? '405' : '404';
  }
}

describe('router: routes indexed by length and second segment', () => {
  const router = new Router(ROUTES);

  it('answers every route of the table as the scan of every route would', () => {
    const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
    const paths = new Set<string>();
    for (const r of ROUTES) {
      paths.add(r.path.replace(/:[A-Za-z]+\+?/g, 'x'));
      // Parameters spelled like their literal siblings (a collection named `count`, a chat named `tools`).
      paths.add(r.path.replace(/:[A-Za-z]+\+?/g, 'count'));
      paths.add(r.path.replace(/:[A-Za-z]+\+?/g, 'tools'));
      paths.add(r.path.replace(/:[A-Za-z]+\+?/g, 'search') + '/');
    }
    for (const extra of [
      '',
      '/',
      '//',
      '/api',
      '/api/',
      '/api//',
      '/api/x',
      '/api/x/y/z/w/v/u/t',
      '/api/route/a/b/c',
      '/api/route//',
      '/api/route/a//',
      '/other/find/c/1',
      '/api/%66ind/c/1',
      'api/find/c/1',
      'x/api/find/c/1',
      '/api/find//1',
      '/api/find/c/1//',
      '/api/chat/tools/',
    ])
      paths.add(extra);
    let checked = 0;
    for (const path of paths) {
      for (const method of methods) {
        expect(answer(router, method, path), `${method} ${path}`).to.equal(reference(method, path));
        checked++;
      }
    }
    expect(checked).to.be.greaterThan(1000);
  });

  it('keeps a literal route before its parameterised sibling and falls back to the parameter', () => {
    expect(router.match('GET', '/api/chat/tools').target.procedure).to.equal('chat.tools.list');
    expect(router.match('GET', '/api/chat/abc').target.procedure).to.equal('chat.get');
    expect(router.match('GET', '/api/subscribe/count').target.procedure).to.equal('changes.subscribe');
    expect(router.match('GET', '/api/users/count').target.procedure).to.equal('records.count');
    expect(router.match('GET', '/api/find/users/a%2Fb').params).to.deep.equal({ collection: 'users', id: 'a/b' });
  });

  it('answers a repeat of the last request from its match, and nothing else from it', () => {
    const fresh = new Router(ROUTES);
    const first = fresh.match('PUT', '/api/update/users/u1');
    expect(fresh.match('PUT', '/api/update/users/u1')).to.equal(first);
    expect(fresh.match('PUT', '/api/update/users/u2').params).to.deep.equal({ collection: 'users', id: 'u2' });
    expect(answer(fresh, 'GET', '/api/update/users/u2')).to.equal(reference('GET', '/api/update/users/u2'));
    expect(answer(fresh, 'GET', '/api/nothing/here/at/all/x')).to.equal('404');
    expect(answer(fresh, 'GET', '/api/nothing/here/at/all/x')).to.equal('404');
    expect(fresh.match('PUT', '/api/update/users/u1').params).to.deep.equal({ collection: 'users', id: 'u1' });
  });
});
