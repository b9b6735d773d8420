/**
 * End-to-end specs for error statuses and bodies (product.md Errors;
 * protocol.md 1.5): routing errors, undecodable bodies, size limits,
 * hostile keys and bad paths, none of which may ever produce a 500.
 */
import { expect } from 'chai';
import { encode as mpEncode } from '@msgpack/msgpack';
import { TestServer, type Reply, type RequestOptions, errorBody } from '../helpers/test-server.js';

function expectErrorBody(r: Reply, status: number): void {
  expect(r.status, r.text).to.equal(status);
  expect(r.headers.get('content-type')).to.contain('application/json');
  expect(r.body).to.have.property('error').that.is.a('string').and.not.empty;
}

/** A MessagePack map with the given keys, written by hand so `__proto__` stays a key. */
function rawMsgpackMap(entries: Array<[string, Buffer]>): Buffer {
  const parts: Buffer[] = [Buffer.from([0x80 | entries.length])];
  for (const [k, v] of entries) parts.push(Buffer.from([0xa0 | k.length]), Buffer.from(k), v);
  return Buffer.concat(parts);
}

describe('error responses over HTTP', () => {
  let t: TestServer;
  let call: TestServer['request'];
  before(async () => {
    t = await TestServer.start();
    call = t.request.bind(t);
  });
  after(async () => {
    await t.stop();
  });

  describe('routing', () => {
    for (const path of ['/api/nope', '/api/find', '/api/insert/a/b/c', '/nothing-here', '/api/collections/a/b']) {
      it(`answers 404 {error} for the unknown route GET ${path}`, async () => {
        expectErrorBody(await call('GET', path), 404);
      });
    }

    for (const [method, path] of [
      ['DELETE', '/api/health'],
      ['PUT', '/api/auth/token'],
      ['PATCH', '/api/find/c/id'],
      ['GET', '/api/insert/c'],
      ['POST', '/api/config'],
      ['PUT', '/api/collections/c'],
    ] as const) {
      it(`answers 405 {code:405, message} to ${method} on the known path ${path}`, async () => {
        const r = await call(method, path, method === 'GET' ? undefined : {});
        expect(r.status).to.equal(405);
        expect(r.body.code).to.equal(405);
        expect(r.body.message).to.be.a('string').and.not.empty;
      });
    }
  });

  describe('request bodies', () => {
    for (const raw of ['{"a":', '{a:1}', "{'a':1}", '[1,2', 'nul', '{"a":1}}', '\u0000']) {
      it(`answers 400 {error} to the malformed JSON ${JSON.stringify(raw)}`, async () => {
        expectErrorBody(await call('POST', '/api/insert/bad_json', undefined, { raw }), 400);
      });
    }

    for (const [why, bytes] of [
      ['a truncated map', [0x82, 0xa1, 0x61]],
      ['the never-used byte 0xc1', [0xc1]],
      ['a map with 0xc1 as a value', [0x81, 0xa1, 0x61, 0xc1]],
      ['trailing bytes after the value', [0x80, 0x01]],
      ['an unknown extension', [0xd4, 0x01, 0x02]],
    ] as const) {
      it(`answers 400 {error} to malformed MessagePack: ${why}`, async () => {
        expectErrorBody(
          await call('POST', '/api/insert/bad_mp', undefined, { format: 'msgpack', raw: Buffer.from(bytes) }),
          400,
        );
      });
    }

    for (const body of [null, [1, 2], 'text', 42, true]) {
      it(`answers 400 {error} to the non-object record body ${JSON.stringify(body)}`, async () => {
        expectErrorBody(await call('POST', '/api/insert/not_object', undefined, { raw: JSON.stringify(body) }), 400);
      });
    }

    for (const type of [
      'text/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
    ]) {
      it(`answers 415 {error} to the content type ${type}`, async () => {
        expectErrorBody(
          await call('POST', '/api/insert/ctype', undefined, { raw: '{"a":1}', headers: { 'Content-Type': type } }),
          415,
        );
      });
    }

    it('wrote nothing for any of the refused bodies', async () => {
      const list = await call('GET', '/api/collections');
      for (const c of ['bad_json', 'bad_mp', 'not_object', 'ctype']) expect(list.body.collections).to.not.include(c);
    });
  });

  describe('hostile keys', () => {
    async function expectRefusedAndUnwritten(r: Reply, coll: string): Promise<void> {
      expectErrorBody(r, 400);
      const count = await call('GET', `/api/${coll}/count`);
      expect(count.body.count ?? 0).to.equal(0);
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
      expect(Object.prototype).to.not.have.property('polluted');
    }

    it('refuses a top-level __proto__ key in JSON', async () => {
      await expectRefusedAndUnwritten(
        await call('POST', '/api/insert/hostile', undefined, { raw: '{"__proto__":{"polluted":true},"a":1}' }),
        'hostile',
      );
    });

    it('refuses a nested __proto__ key in JSON', async () => {
      await expectRefusedAndUnwritten(
        await call('POST', '/api/insert/hostile', undefined, { raw: '{"a":{"b":{"__proto__":{"polluted":true}}}}' }),
        'hostile',
      );
    });

    it('refuses a __proto__ key spelled with unicode escapes in JSON', async () => {
      await expectRefusedAndUnwritten(
        await call('POST', '/api/insert/hostile', undefined, { raw: '{"\\u005f_proto__":{"polluted":true}}' }),
        'hostile',
      );
    });

    it('refuses constructor and prototype keys at any depth', async () => {
      await expectRefusedAndUnwritten(
        await call('POST', '/api/insert/hostile', { constructor: { prototype: { polluted: true } } }),
        'hostile',
      );
      await expectRefusedAndUnwritten(
        await call('POST', '/api/insert/hostile', { a: [{ constructor: 1 }] }),
        'hostile',
      );
      await expectRefusedAndUnwritten(
        await call('POST', '/api/insert/hostile', { a: { type: 'Object', value: { prototype: 1 } } }),
        'hostile',
      );
    });

    it('refuses a __proto__ key in MessagePack, top-level and nested', async () => {
      const polluting = rawMsgpackMap([['polluted', Buffer.from([0xc3])]]);
      const top = rawMsgpackMap([
        ['__proto__', polluting],
        ['a', Buffer.from([0x01])],
      ]);
      await expectRefusedAndUnwritten(
        await call('POST', '/api/insert/hostile', undefined, { format: 'msgpack', raw: top }),
        'hostile',
      );
      const nested = rawMsgpackMap([['a', rawMsgpackMap([['__proto__', polluting]])]]);
      await expectRefusedAndUnwritten(
        await call('POST', '/api/insert/hostile', undefined, { format: 'msgpack', raw: nested }),
        'hostile',
      );
    });

    it('still accepts MessagePack that mentions __proto__ only as a value', async () => {
      const r = await call('POST', '/api/insert/proto_value', { note: '__proto__', n: 1 }, { format: 'msgpack' });
      expect(r.status).to.equal(201);
      const read = await call('GET', `/api/find/proto_value/${r.body.id}`);
      expect(read.body.note).to.deep.equal({ type: 'String', value: '__proto__' });
      expect(read.body.n).to.deep.equal({ type: 'Integer', value: 1 });
    });

    it('refuses a constructor key in MessagePack', async () => {
      await expectRefusedAndUnwritten(
        await call('POST', '/api/insert/hostile', undefined, {
          format: 'msgpack',
          raw: Buffer.from(mpEncode({ constructor: { prototype: { polluted: true } } })),
        }),
        'hostile',
      );
    });

    it('refuses hostile keys in updates, schemas, key permissions and config', async () => {
      await call('POST', '/api/insert/hostile_upd', { id: 'u1', a: 1 });
      expectErrorBody(
        await call('PUT', '/api/update/hostile_upd/u1', undefined, { raw: '{"__proto__":{"polluted":true}}' }),
        400,
      );
      expectErrorBody(await call('PUT', '/api/update/hostile_upd/u1', { constructor: 1 }), 400);
      expectErrorBody(
        await call('POST', '/api/collections/hostile_schema', {
          fields: { __proto__x: { field_type: 'String' }, constructor: { field_type: 'String' } },
        }),
        400,
      );
      expectErrorBody(
        await call('PUT', '/api/schemas/hostile_upd', { constraints: { prototype: { field_type: 'String' } } }),
        400,
      );
      expectErrorBody(
        await call('POST', '/api/auth/keys', undefined, {
          raw: '{"collection_permissions":{"__proto__":{"read":true}}}',
        }),
        400,
      );
      expectErrorBody(
        await call('PUT', '/api/config', undefined, { raw: '{"__proto__":{"use_typed_values":false}}' }),
        400,
      );
      const read = await call('GET', '/api/find/hostile_upd/u1');
      expect(Object.keys(read.body)).to.have.members(['id', 'a']);
      expect((await call('GET', '/api/collections/hostile_schema')).status).to.equal(404);
      expect((await call('GET', '/api/config')).body.use_typed_values).to.equal(true);
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    });
  });

  describe('paths', () => {
    for (const path of [
      '/api/find/c/%E0%A4%A',
      '/api/find/c/%ZZ',
      '/api/find/c/%',
      '/api/collections/%C3',
      '/api/x%ZZ/count',
    ]) {
      it(`answers 400 {error} to the bad percent-encoding in ${path}`, async () => {
        const r = await call('GET', path);
        expectErrorBody(r, 400);
        expect(errorBody(r)).to.have.all.keys('error');
        expect(r.body.error).to.contain('percent-encoding');
      });
    }

    it('answers 400 {error} to bad percent-encoding on a write route and writes nothing', async () => {
      expectErrorBody(await call('POST', '/api/insert/%E0%A4%A', { a: 1 }), 400);
      expectErrorBody(await call('DELETE', '/api/delete/c/%ZZ'), 400);
    });
  });

  it('never answers 500 to any of a barrage of odd requests, and keeps serving', async () => {
    const odd: Array<[string, string, RequestOptions]> = [
      ['POST', '/api/insert/odd', { raw: '{"a":1e999}' }],
      ['POST', '/api/insert/odd', { raw: '{"a":{"type":"Integer","value":"x"}}' }],
      ['POST', '/api/insert/odd', { raw: '{"a":{"type":"DateTime","value":12.5e99}}' }],
      ['POST', '/api/insert/odd', { raw: '{"id":{"nested":1}}' }],
      ['POST', '/api/insert/odd', { raw: JSON.stringify({ deep: JSON.parse('['.repeat(200) + ']'.repeat(200)) }) }],
      ['POST', '/api/insert/odd', { raw: '['.repeat(5000) + ']'.repeat(5000) }],
      ['POST', '/api/insert/odd', { raw: '{"a":"\\ud800"}' }],
      ['POST', '/api/find/odd', { raw: '{"filter":{"type":"Nope"}}' }],
      ['POST', '/api/find/odd', { raw: '"just a string"' }],
      ['POST', '/api/collections/odd2', { raw: '{"fields":[1,2]}' }],
      ['POST', '/api/collections/odd3', { raw: '{"fields":{"a":{"field_type":"String","regex":"("}}}' }],
      ['PUT', '/api/schemas/odd', { raw: '{"constraints":null}' }],
      ['PUT', '/api/config', { raw: '{"rate_limit_window_secs":0}' }],
      ['POST', '/api/auth/token', { raw: '{"api_key":null}', token: null }],
      ['POST', '/api/auth/token', { raw: 'garbage', token: null }],
      ['POST', '/api/auth/keys', { raw: '{"rate_limit":1.5}' }],
      ['GET', '/api/find/odd/' + 'x'.repeat(5000), {}],
      ['GET', '/api/find/odd/%00', {}],
      ['POST', '/api/insert/odd', { format: 'msgpack', raw: Buffer.from([0xdd, 0xff, 0xff, 0xff, 0xff]) }],
      ['POST', '/api/insert/odd', { format: 'msgpack', raw: Buffer.from([0xc7, 0x01, 0xff, 0x00]) }],
      ['OPTIONS', '/api/insert/odd', {}],
    ];
    for (const [method, path, opts] of odd) {
      const r = await call(method, path, undefined, opts);
      expect(
        r.status,
        `${method} ${path.slice(0, 60)} ${JSON.stringify(opts.raw ?? '').slice(0, 60)}: ${r.text}`,
      ).to.be.below(500);
    }
    expect((await call('GET', '/api/health')).status).to.equal(200);
  });
});

describe('body size limit over HTTP', () => {
  let t: TestServer;
  let call: TestServer['request'];
  before(async () => {
    t = await TestServer.start({ bodyLimitBytes: 1024 });
    call = t.request.bind(t);
  });
  after(async () => {
    await t.stop();
  });

  it('answers 413 {error} to a JSON body over the limit and writes nothing', async () => {
    const r = await call('POST', '/api/insert/big', { text: 'x'.repeat(2000) });
    expectErrorBody(r, 413);
    expect((await call('GET', '/api/collections')).body.collections).to.not.include('big');
  });

  it('answers 413 {error} to a MessagePack body over the limit', async () => {
    expectErrorBody(await call('POST', '/api/insert/big', { text: 'x'.repeat(2000) }, { format: 'msgpack' }), 413);
  });

  it('answers 413 on other routes too', async () => {
    expectErrorBody(await call('PUT', '/api/config', { pad: 'x'.repeat(2000) }), 413);
    expectErrorBody(await call('DELETE', '/api/delete/big/x', { pad: 'x'.repeat(2000) }), 413);
  });

  it('accepts a body just under the limit', async () => {
    const r = await call('POST', '/api/insert/small', { text: 'x'.repeat(900) });
    expect(r.status).to.equal(201);
  });
});
