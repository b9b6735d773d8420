/**
 * The OpenAPI document against what the server serves: every route of the
 * table (and the WebSocket upgrade) and nothing else, every route of the
 * protocol inventory, valid OpenAPI 3.1 by a maintained validator, every
 * schema in it valid JSON Schema 2020-12, the same text on every build, and
 * served without a token by the server and the express adapter alike.
 */
import type { AddressInfo } from 'node:net';
import type { Server as NodeServer } from 'node:http';
import { expect } from 'chai';
import express from 'express';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApiDocument, openApiPath, type OpenApiDocument } from '../../../lib/http/openapi/index.js';
import { createRegistry } from '../../../lib/http/procedures/index.js';
import { ROUTES } from '../../../lib/http/routing/routes.js';
import { createExpressHandler } from '../../../lib/http/index.js';
import { ROUTE_INVENTORY } from '../../protocol/inventory.js';
import { routeKey } from '../../protocol/route-key.js';
import { servedRoutes } from '../../protocol/served.js';
import { TestServer } from '../../helpers/test-server.js';
import { documentSchemas, RouteValidators, schemaValidator } from './schema-validator.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** `GET /api/find/:/:` for a route in any notation (protocol.md's, the table's, OpenAPI's). */
const keyOf = (method: string, path: string) => routeKey(method.toUpperCase(), path);

function documented(doc: OpenApiDocument): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((member) => METHODS.includes(member))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

describe('the OpenAPI document', () => {
  const doc = buildOpenApiDocument(ROUTES, createRegistry(), 'spec');

  it('is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(doc)));
    expect(result.errors ?? [], 'validation errors').to.deep.equal([]);
    expect(result.valid).to.equal(true);
    expect(validator.version).to.equal('3.1');
  });

  it('holds only schemas that compile as JSON Schema 2020-12 in strict mode', () => {
    const ajv = schemaValidator(doc);
    const failures: string[] = [];
    for (const { where, schema } of documentSchemas(doc)) {
      try {
        ajv.compile(schema);
      } catch (err) {
        failures.push(`${where}: ${(err as Error).message}`);
      }
    }
    expect(failures).to.deep.equal([]);
  });

  it('has a declared schema for every routed procedure', () => {
    const registry = createRegistry();
    const undescribed = ROUTES.filter((r) => !registry.get(r.target.procedure)?.schema).map(
      (r) => `${r.method} ${r.path}: ${r.target.procedure}`,
    );
    expect(undescribed, 'give these procedures a `schema` (procedure.ts, ProcedureSchema)').to.deep.equal([]);
  });

  it('gives validators that refuse an answer of the wrong shape', () => {
    const validators = new RouteValidators(doc);
    const count = validators.response('GET', '/api/{collection}/count', 200)!;
    expect(count({ count: 3 })).to.equal(true);
    expect(count({ count: 'three' })).to.equal(false);
    const missing = validators.response('GET', '/api/{collection}/count', 404)!;
    expect(missing({ error: 'Collection not found' })).to.equal(true);
    expect(missing({ message: 404 })).to.equal(false);
    expect(validators.body('POST', '/api/transactions')!({ isolation_level: 'Sometimes' })).to.equal(false);
  });

  it('documents every served route, and only those', () => {
    const served = servedRoutes().map((r) => `${r.method} ${openApiPath(r.path)}`);
    expect(documented(doc).sort()).to.deep.equal([...new Set(served)].sort());
  });

  it('documents every route of the protocol inventory', () => {
    const keys = new Set(documented(doc).map((route) => keyOf(...(route.split(' ') as [string, string]))));
    const missing = ROUTE_INVENTORY.filter((r) => !keys.has(keyOf(r.method, r.path))).map(
      (r) => `${r.method} ${r.path} (protocol.md ${r.section})`,
    );
    expect(missing).to.deep.equal([]);
  });

  it('names every path parameter of each path in OpenAPI form', () => {
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      for (const [method, operation] of Object.entries(item)) {
        const params = ((operation.parameters ?? []) as Array<{ name: string; in: string }>)
          .filter((p) => p.in === 'path')
          .map((p) => p.name)
          .sort();
        if (JSON.stringify(params) !== JSON.stringify(templated)) wrong.push(`${method} ${path}`);
      }
      if (path.includes(':')) wrong.push(path);
    }
    expect(wrong).to.deep.equal([]);
  });

  it('writes the rest parameter of path-routed functions as protocol.md does', () => {
    expect(Object.keys(doc.paths)).to.include('/api/route/{path...}');
    const get = doc.paths['/api/route/{path...}']!.get!;
    expect(get.parameters).to.deep.include({
      name: 'path...',
      in: 'path',
      required: true,
      schema: { type: 'string' },
      description: 'The rest of the path: one or more segments, joined by `/`.',
    });
  });

  it('marks the routes that need no token with security: [] and the others with the bearer scheme', () => {
    const registry = createRegistry();
    const wrong: string[] = [];
    for (const route of ROUTES) {
      const operation = doc.paths[openApiPath(route.path)]![route.method.toLowerCase()]!;
      const proc = registry.get(route.target.procedure)!;
      const open = proc.access === 'public' && proc.kind !== 'stream';
      const security = operation.security ?? doc.security;
      const ok = open
        ? JSON.stringify(security) === '[]'
        : (security as object[]).some((s) => 'bearer' in s) &&
          !(security as object[]).some((s) => !Object.keys(s).length);
      if (!ok) wrong.push(`${route.method} ${route.path}: ${JSON.stringify(security)}`);
    }
    expect(wrong).to.deep.equal([]);
    expect((doc.components as { securitySchemes: Record<string, unknown> }).securitySchemes.bearer).to.deep.include({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
  });

  it('is the same text on every build, with paths and methods sorted', () => {
    const again = buildOpenApiDocument(ROUTES, createRegistry(), 'spec');
    expect(JSON.stringify(again)).to.equal(JSON.stringify(doc));
    const paths = Object.keys(doc.paths);
    expect(paths).to.deep.equal([...paths].sort());
    for (const item of Object.values(doc.paths)) expect(Object.keys(item)).to.deep.equal(Object.keys(item).sort());
  });

  describe('GET /api/openapi.json', () => {
    let t: TestServer;
    let mounted: NodeServer;
    let expressUrl: string;
    before(async () => {
      t = await TestServer.start({ memory: true });
      const app = express();
      app.use(createExpressHandler(t.server.dispatcher));
      mounted = await new Promise<NodeServer>((resolve) => {
        const s = app.listen(0, '127.0.0.1', () => resolve(s));
      });
      expressUrl = `http://127.0.0.1:${(mounted.address() as AddressInfo).port}`;
    });
    after(async () => {
      await new Promise((resolve) => mounted.close(resolve));
      await t.stop();
    });

    it('answers the document without a token, the same on every request', async () => {
      const first = await t.request('GET', '/api/openapi.json', undefined, { token: null });
      expect(first.status).to.equal(200);
      expect(first.body.openapi).to.equal('3.1.0');
      expect(Object.keys(first.body.paths)).to.deep.equal(Object.keys(doc.paths));
      const second = await t.request('GET', '/api/openapi.json', undefined, { token: null });
      expect(second.text).to.equal(first.text);
    });

    it('answers the same document through the express adapter', async () => {
      const direct = await t.request('GET', '/api/openapi.json', undefined, { token: null });
      const res = await fetch(`${expressUrl}/api/openapi.json`, { headers: { 'Accept-Encoding': 'identity' } });
      expect(res.status).to.equal(200);
      expect(await res.text()).to.equal(direct.text);
    });
  });
});
