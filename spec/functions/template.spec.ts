import { expect } from 'chai';
import { compileTemplate, resolveTemplate, type TemplateScope } from '../../lib/functions/index.js';

function scopeOf(values: Record<string, unknown>, params: Record<string, unknown> = {}): TemplateScope {
  return {
    lookup(path) {
      let cur: unknown = values;
      for (const p of path) {
        if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, p))
          return { found: false, value: undefined };
        cur = (cur as Record<string, unknown>)[p];
      }
      return { found: true, value: cur };
    },
    param: (name) => (Object.hasOwn(params, name) ? params[name] : null),
  };
}

describe('functions: templates', () => {
  it('keeps the JSON type of a string that is exactly one placeholder', () => {
    const t = compileTemplate({ limit: '{{page_size}}', body: '{{resp}}' }, 'x');
    expect(resolveTemplate(t, scopeOf({ page_size: 25, resp: { a: [1] } }))).to.deep.equal({
      limit: 25,
      body: { a: [1] },
    });
  });

  it('substitutes placeholders inside text, dotted paths included', () => {
    const t = compileTemplate('user {{ name }} holds {{lock.token}}', 'x');
    expect(resolveTemplate(t, scopeOf({ name: 'ann', lock: { token: 'abc' } }))).to.equal('user ann holds abc');
  });

  it('resolves Parameter references to the value as sent, typed wrappers included', () => {
    const t = compileTemplate({ record: { type: 'Parameter', name: 'doc' } }, 'x', { parameters: new Set(['doc']) });
    const doc = { price: { type: 'Decimal', value: '1.50' } };
    expect(resolveTemplate(t, scopeOf({}, { doc }))).to.deep.equal({ record: doc });
  });

  it('lets a typed wrapper hold a placeholder, the outer type winning over a wrapped value', () => {
    const t = compileTemplate({ total: { type: 'Decimal', value: '{{amount}}' } }, 'x');
    expect(resolveTemplate(t, scopeOf({ amount: '12.5' }))).to.deep.equal({
      total: { type: 'Decimal', value: '12.5' },
    });
    expect(resolveTemplate(t, scopeOf({ amount: { type: 'String', value: '3' } }))).to.deep.equal({
      total: { type: 'Decimal', value: '3' },
    });
  });

  it('compiles a value without placeholders to a constant', () => {
    const raw = { a: [1, 'two'], b: { c: null } };
    expect(compileTemplate(raw, 'x')).to.deep.equal({ kind: 'const', value: raw });
  });

  it('refuses prototype keys in placeholders, Parameter names and members, naming the path', () => {
    expect(() => compileTemplate('{{__proto__.x}}', 'functions[0].record')).to.throw(
      /functions\[0\].record: placeholder .* forbidden member '__proto__'/,
    );
    expect(() => compileTemplate('{{a.constructor}}', 'p')).to.throw(/forbidden member 'constructor'/);
    expect(() => compileTemplate({ type: 'Parameter', name: 'prototype' }, 'p')).to.throw(/forbidden/);
    expect(() => compileTemplate(JSON.parse('{"__proto__": {"x": 1}}'), 'p')).to.throw(
      /forbidden member name '__proto__'/,
    );
  });

  it('refuses malformed placeholders and unknown Parameter names at compile time', () => {
    expect(() => compileTemplate('{{}}', 'p.q')).to.throw(/p.q: bad placeholder/);
    expect(() => compileTemplate('{{a b}}', 'p')).to.throw(/bad placeholder/);
    expect(() => compileTemplate({ type: 'Parameter', name: 'nope' }, 'p', { parameters: new Set(['x']) })).to.throw(
      /p: unknown parameter 'nope'/,
    );
  });

  it('reports a placeholder with no value when resolved', () => {
    expect(() => resolveTemplate(compileTemplate('{{missing}}', 'p'), scopeOf({}))).to.throw(
      /'\{\{missing\}\}' has no value/,
    );
  });

  describe('{{env.NAME}}', () => {
    const env: Record<string, string> = { JWT_SECRET: 's3cret', PORT: '8080' };
    const withEnv = { ...scopeOf({ env: { JWT_SECRET: 'from a field' } }), env: (name: string) => env[name]! };

    it('is its own kind, exact or inside text, read from the scope and never from a field named env', () => {
      expect(compileTemplate('{{env.JWT_SECRET}}', 'p')).to.deep.equal({ kind: 'env', name: 'JWT_SECRET' });
      expect(resolveTemplate(compileTemplate('{{ env.JWT_SECRET }}', 'p'), withEnv)).to.equal('s3cret');
      expect(resolveTemplate(compileTemplate('Bearer {{env.JWT_SECRET}} on {{env.PORT}}', 'p'), withEnv)).to.equal(
        'Bearer s3cret on 8080',
      );
      expect(resolveTemplate(compileTemplate({ h: { auth: '{{env.JWT_SECRET}}' } }, 'p'), withEnv)).to.deep.equal({
        h: { auth: 's3cret' },
      });
      expect(resolveTemplate(compileTemplate('{{env}}', 'p'), scopeOf({ env: 'plain field' }))).to.equal('plain field');
    });

    it('checks the name against the allow-list at compile time when given one, naming the variable', () => {
      const ctx = { envAllowed: (n: string) => n === 'JWT_SECRET' };
      expect(() => compileTemplate('{{env.JWT_SECRET}}', 'p', ctx)).to.not.throw();
      expect(() => compileTemplate('x {{env.HOME}}', 'functions[1].url', ctx)).to.throw(
        "functions[1].url: environment variable 'HOME' is not on the allow-list (function_env_allowlist or " +
          'EDDYDB_FUNCTION_ENV)',
      );
      expect(() => compileTemplate('{{env.1BAD}}', 'p')).to.throw("p: bad environment variable name '1BAD'");
    });

    it('cannot be read from a scope without an environment', () => {
      expect(() => resolveTemplate(compileTemplate('{{env.JWT_SECRET}}', 'p'), scopeOf({}))).to.throw(
        "Environment variable 'JWT_SECRET' cannot be read here",
      );
    });
  });
});
