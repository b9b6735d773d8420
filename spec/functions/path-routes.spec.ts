import { expect } from 'chai';
import { InvalidInput } from '../../lib/errors.js';
import {
  compilePathPattern,
  matchRoute,
  mergeRouteParams,
  parseHttpMethod,
  type HttpMethod,
  type RouteCandidate,
} from '../../lib/functions/index.js';

const route = (method: HttpMethod, path: string, value = `${method} ${path}`): RouteCandidate<string> => ({
  method,
  pattern: compilePathPattern(path),
  value,
});

function saveError(httpPath: unknown): string {
  try {
    compilePathPattern(httpPath, 'http_path');
  } catch (err) {
    expect(err).to.be.instanceOf(InvalidInput);
    return (err as Error).message;
  }
  throw new Error('expected compilePathPattern to throw');
}

describe('functions/routing/path-routes', () => {
  describe('compilePathPattern', () => {
    it('splits literals and :name parameters and counts placeholders', () => {
      const p = compilePathPattern('/users/:id/posts/:post_id');
      expect(p.segments).to.deep.equal([
        { literal: 'users' },
        { param: 'id' },
        { literal: 'posts' },
        { param: 'post_id' },
      ]);
      expect(p.placeholders).to.equal(2);
      expect(p.shape).to.equal('/users/:/posts/:');
      expect(p.source).to.equal('/users/:id/posts/:post_id');
    });
    it('gives patterns that match the same paths the same shape', () => {
      expect(compilePathPattern('/users/:id').shape).to.equal(compilePathPattern('/users/:uid/').shape);
      expect(compilePathPattern('/a%3Ab').shape).to.not.equal(compilePathPattern('/:b').shape);
    });
    it('accepts the root path and ignores one trailing slash', () => {
      expect(compilePathPattern('/').segments).to.deep.equal([]);
      expect(compilePathPattern('/health/').segments).to.deep.equal([{ literal: 'health' }]);
    });
    it('refuses paths that do not start with a slash, empty segments, queries and white space', () => {
      expect(saveError('users/:id')).to.match(/^http_path: expected a path starting with '\/'/);
      expect(saveError(42)).to.equal(
        "http_path: expected a path starting with '/', such as '/users/:id', got a number",
      );
      expect(saveError('/users//x')).to.equal('http_path: empty path segment (two slashes in a row)');
      expect(saveError('/users?x=1')).to.match(/^http_path: a path may not hold a query/);
      expect(saveError('/a b')).to.match(/^http_path: a path may not hold/);
    });
    it('refuses bad, repeated and prototype-polluting parameter names', () => {
      expect(saveError('/users/:')).to.match(/^http_path: bad parameter ':'/);
      expect(saveError('/users/:1st')).to.match(/^http_path: bad parameter ':1st'/);
      expect(saveError('/users/:a-b')).to.match(/^http_path: bad parameter/);
      expect(saveError('/a/:id/b/:id')).to.equal("http_path: parameter ':id' appears twice");
      for (const name of ['__proto__', 'constructor', 'prototype'])
        expect(saveError(`/x/:${name}`)).to.match(/^http_path: Forbidden field name/);
    });
    it('refuses malformed percent-encoding in a literal and bounds the length', () => {
      expect(saveError('/a%zz')).to.match(/^http_path: Malformed percent-encoding/);
      expect(saveError('/' + 'a'.repeat(1024))).to.match(/^http_path: 1025 characters/);
      expect(saveError('/a'.repeat(65))).to.match(/^http_path: 65 segments/);
    });
  });

  describe('parseHttpMethod', () => {
    it('accepts the five methods in any case', () => {
      expect(parseHttpMethod('get')).to.equal('GET');
      expect(parseHttpMethod('DELETE')).to.equal('DELETE');
    });
    it('refuses anything else, naming the member', () => {
      expect(() => parseHttpMethod('HEAD', 'http_method')).to.throw(
        InvalidInput,
        "http_method: expected one of GET, POST, PUT, PATCH, DELETE, got 'HEAD'",
      );
      expect(() => parseHttpMethod(undefined)).to.throw(InvalidInput, /^http_method: .* got nothing$/);
    });
  });

  describe('matchRoute', () => {
    const routes = [
      route('GET', '/users/:id'),
      route('GET', '/users/me'),
      route('POST', '/users/:id'),
      route('GET', '/users/:id/posts/:post'),
    ];

    it('matches method, segment count and literals, and extracts parameters', () => {
      expect(matchRoute(routes, 'GET', '/users/42')).to.deep.equal({ value: 'GET /users/:id', params: { id: '42' } });
      expect(matchRoute(routes, 'POST', '/users/42')).to.deep.equal({ value: 'POST /users/:id', params: { id: '42' } });
      expect(matchRoute(routes, 'GET', '/users/7/posts/9')).to.deep.equal({
        value: 'GET /users/:id/posts/:post',
        params: { id: '7', post: '9' },
      });
    });
    it('finds nothing for another method, another segment count or another literal', () => {
      expect(matchRoute(routes, 'PUT', '/users/42')).to.equal(undefined);
      expect(matchRoute(routes, 'GET', '/users')).to.equal(undefined);
      expect(matchRoute(routes, 'GET', '/users/1/2')).to.equal(undefined);
      expect(matchRoute(routes, 'GET', '/people/1')).to.equal(undefined);
      expect(matchRoute([], 'GET', '/')).to.equal(undefined);
    });
    it('prefers the pattern with fewest placeholders, whatever the candidate order', () => {
      expect(matchRoute(routes, 'GET', '/users/me')).to.deep.equal({ value: 'GET /users/me', params: {} });
      expect(matchRoute([...routes].reverse(), 'GET', '/users/me')!.value).to.equal('GET /users/me');
    });
    it('breaks a tie in placeholders by the leftmost literal, then the path text, then candidate order', () => {
      const tied = [route('GET', '/:a/b'), route('GET', '/a/:b')];
      expect(matchRoute(tied, 'GET', '/a/b')!.value).to.equal('GET /a/:b');
      expect(matchRoute([...tied].reverse(), 'GET', '/a/b')!.value).to.equal('GET /a/:b');
      const same = [route('GET', '/u/:y', 'second'), route('GET', '/u/:x', 'first')];
      expect(matchRoute(same, 'GET', '/u/1')).to.deep.equal({ value: 'first', params: { x: '1' } });
      const identical = [route('GET', '/u/:x', 'one'), route('GET', '/u/:x', 'two')];
      expect(matchRoute(identical, 'GET', '/u/1')!.value).to.equal('one');
    });
    it('percent-decodes segments after splitting', () => {
      expect(matchRoute(routes, 'GET', '/users/a%2Fb')).to.deep.equal({
        value: 'GET /users/:id',
        params: { id: 'a/b' },
      });
      expect(matchRoute(routes, 'GET', '/users/J%C3%BCrgen')!.params).to.deep.equal({ id: 'Jürgen' });
      expect(matchRoute(routes, 'GET', '/%75sers/me')!.value).to.equal('GET /users/me');
      expect(matchRoute([route('GET', '/caf%C3%A9')], 'GET', '/café')!.value).to.equal('GET /caf%C3%A9');
    });
    it('ignores the query string and one trailing slash, and takes a method in any case', () => {
      expect(matchRoute(routes, 'get', '/users/42/?x=1')).to.deep.equal({
        value: 'GET /users/:id',
        params: { id: '42' },
      });
      expect(matchRoute([route('GET', '/')], 'GET', '')!.value).to.equal('GET /');
    });
    it('does not match paths with empty segments', () => {
      expect(matchRoute(routes, 'GET', '/users//')).to.equal(undefined);
      expect(matchRoute(routes, 'GET', '//42')).to.equal(undefined);
    });
    it('refuses malformed percent-encoding with InvalidInput', () => {
      expect(() => matchRoute(routes, 'GET', '/users/%E0%A4%A')).to.throw(InvalidInput, /Malformed percent-encoding/);
    });
    it('keeps parameter names that look like Object members as plain data', () => {
      const m = matchRoute([route('GET', '/x/:toString')], 'GET', '/x/1')!;
      expect(m.params.toString).to.equal('1');
      expect(Object.keys(m.params)).to.deep.equal(['toString']);
    });
  });

  describe('mergeRouteParams', () => {
    it('lets body parameters override path parameters', () => {
      expect(mergeRouteParams({ id: '42', mode: 'path' }, { mode: 'body', n: 1 })).to.deep.equal({
        id: '42',
        mode: 'body',
        n: 1,
      });
    });
    it('takes an absent body as no parameters', () => {
      expect(mergeRouteParams({ id: '1' }, undefined)).to.deep.equal({ id: '1' });
      expect(mergeRouteParams({ id: '1' }, null)).to.deep.equal({ id: '1' });
    });
    it('refuses a body that is not an object, and prototype-polluting members', () => {
      expect(() => mergeRouteParams({}, [1])).to.throw(InvalidInput, /JSON object of parameters, got an array/);
      expect(() => mergeRouteParams({}, 'x')).to.throw(InvalidInput, /got a string/);
      expect(() => mergeRouteParams({}, JSON.parse('{"__proto__": {"polluted": true}}'))).to.throw(
        InvalidInput,
        /Forbidden field name '__proto__'/,
      );
      expect(() => mergeRouteParams({}, { constructor: 1 })).to.throw(
        InvalidInput,
        /Forbidden field name 'constructor'/,
      );
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    });
  });
});
