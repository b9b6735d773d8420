/**
 * Named schemas: a schema with a `title` (a record, the error body, a goal)
 * is written once under `components.schemas` and referred to by `$ref`
 * wherever it appears, so the document names the shapes a client meets and
 * stays small. Two different schemas under one title are a mistake in the
 * declarations, refused when the document is built.
 */
import type { JsonSchema } from '../procedures/procedure.js';

type Json = Record<string, unknown>;

/** Members whose values are data, not schemas: never walked. */
const DATA_MEMBERS = new Set(['const', 'default', 'enum', 'examples', 'example']);

export class SchemaComponents {
  private readonly named = new Map<string, { schema: Json; text: string }>();

  /** `schema` with every titled schema inside it (itself included) replaced by a `$ref` to its component. */
  refer(schema: JsonSchema): Json {
    return this.walk(schema as Json, true) as Json;
  }

  /** The named schemas, sorted by name, each with its own titled members referred to. */
  schemas(): Json {
    const out: Json = {};
    for (const name of [...this.named.keys()].sort()) out[name] = this.named.get(name)!.schema;
    return out;
  }

  private walk(node: unknown, refer: boolean): unknown {
    if (Array.isArray(node)) return node.map((item) => this.walk(item, true));
    if (node === null || typeof node !== 'object') return node;
    const schema = node as Json;
    if (refer && typeof schema.title === 'string') return { $ref: `#/components/schemas/${this.add(schema)}` };
    const out: Json = {};
    for (const [key, value] of Object.entries(schema))
      out[key] = DATA_MEMBERS.has(key) ? value : this.walk(value, true);
    return out;
  }

  private add(schema: Json): string {
    const name = schema.title as string;
    const text = JSON.stringify(schema);
    const known = this.named.get(name);
    if (known) {
      if (known.text !== text) throw new Error(`two different schemas are titled '${name}': give one another title`);
      return name;
    }
    // Reserved before its members are walked, so a schema that contains itself ends.
    this.named.set(name, { schema: {}, text });
    this.named.set(name, { schema: this.walk(schema, false) as Json, text });
    return name;
  }
}
