/**
 * The OpenAPI document's schemas compiled with ajv (JSON Schema 2020-12, as
 * OpenAPI 3.1 reads them): every schema in it, and the validator of one
 * route's request body or answer at a status, to check what a real server
 * took and answered.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import type { OpenApiDocument } from '../../../lib/http/openapi/index.js';

type Json = Record<string, any>;

/** `#/components/schemas/X` as ajv finds it: the named schemas are added as one schema's `$defs`. */
function rewritten(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"components#/$defs/'));
}

/** A strict ajv that resolves the document's named schemas. */
export function schemaValidator(doc: OpenApiDocument): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  ajv.addSchema({ $id: 'components', $defs: rewritten((doc.components as Json).schemas) });
  return ajv;
}

/** Every schema in the document, with where it is. */
export function documentSchemas(doc: OpenApiDocument): Array<{ where: string; schema: Json }> {
  const out: Array<{ where: string; schema: Json }> = [];
  const components = doc.components as Json;
  for (const [name, schema] of Object.entries(components.schemas as Json)) {
    out.push({ where: `components.schemas.${name}`, schema: rewritten(schema) });
  }
  const content = (where: string, media: Json | undefined) => {
    for (const [type, entry] of Object.entries(media ?? {})) {
      out.push({ where: `${where} ${type}`, schema: rewritten(entry.schema) });
      if (entry['x-event-data']) out.push({ where: `${where} events`, schema: rewritten(entry['x-event-data']) });
    }
  };
  for (const [name, response] of Object.entries(components.responses as Json)) {
    content(`components.responses.${name}`, response.content);
  }
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      for (const p of (operation.parameters ?? []) as Json[]) {
        out.push({ where: `${where} ${p.in} ${p.name}`, schema: rewritten(p.schema) });
      }
      content(`${where} body`, (operation.requestBody as Json | undefined)?.content);
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        content(`${where} ${status}`, response.content);
      }
    }
  }
  return out;
}

/** Validators of one document's request bodies and answers, by route pattern (OpenAPI form), method and status. */
export class RouteValidators {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();

  /** The error body's validator (components.responses.Error). */
  readonly error: ValidateFunction;

  constructor(private readonly doc: OpenApiDocument) {
    this.ajv = schemaValidator(doc);
    const errors = (doc.components as Json).responses.Error;
    this.error = this.compiled('error', errors.content['application/json'].schema);
  }

  /** The answer's validator at `status`: its exact entry, else its range (`4XX`); undefined when none. */
  response(method: string, path: string, status: number): ValidateFunction | undefined {
    const operation = this.operation(method, path);
    const responses = operation.responses as Json;
    let response = responses[String(status)] ?? responses[`${String(status)[0]}XX`];
    if (!response) return undefined;
    if (response.$ref) response = (this.doc.components as Json).responses[response.$ref.split('/').pop()];
    const schema = response.content?.['application/json']?.schema;
    if (!schema) return undefined;
    return this.compiled(`${method} ${path} ${status}`, schema);
  }

  /** `POST /api/insert/{collection}`... for every operation with a request body. */
  routesWithBodies(): string[] {
    return Object.entries(this.doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => operation.requestBody !== undefined)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
  }

  /** The media types an answer at `status` is documented with. */
  media(method: string, path: string, status: number): string[] {
    const response = (this.operation(method, path).responses as Json)[String(status)];
    return Object.keys(response?.content ?? {});
  }

  /** The request body's validator; undefined when the route documents no body. */
  body(method: string, path: string): ValidateFunction | undefined {
    const schema = (this.operation(method, path).requestBody as Json | undefined)?.content['application/json'].schema;
    return schema ? this.compiled(`${method} ${path} body`, schema) : undefined;
  }

  /** A stream's event data validator. */
  event(method: string, path: string): ValidateFunction | undefined {
    const content = (this.operation(method, path).responses as Json)['200']?.content?.['text/event-stream'];
    return content ? this.compiled(`${method} ${path} events`, content['x-event-data']) : undefined;
  }

  private operation(method: string, path: string): Json {
    const operation = this.doc.paths[path]?.[method.toLowerCase()];
    if (!operation) throw new Error(`the document has no ${method} ${path}`);
    return operation;
  }

  private compiled(key: string, schema: unknown): ValidateFunction {
    let validate = this.cache.get(key);
    if (!validate) {
      validate = this.ajv.compile(rewritten(schema));
      this.cache.set(key, validate);
    }
    return validate;
  }
}
