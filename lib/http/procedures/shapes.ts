/**
 * Wire shapes several procedures share, as JSON Schema (TypeBox) for their
 * `schema` members: records, queries, the common query parameters and the
 * small status answers. A titled schema is one named component of the
 * OpenAPI document (lib/http/openapi/components.ts). Optional members that a
 * parser reads as absent when null are `nullable`.
 */
import Type, { type TSchema } from 'typebox';

export { Type, type TSchema };

/** A member that may also be null (the parsers read null as absent). */
export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Any JSON value. */
export const Anything = Type.Unknown();

/** A stored record on the wire: `id` and its fields, bare or typed (`{type, value}`) per `use_typed_values`. */
export const RecordShape = Type.Object(
  { id: Type.String({ description: 'The record id.' }) },
  {
    title: 'Record',
    description:
      'A record: its id and fields. With use_typed_values (the default) each field is {type, value} ' +
      '(String, Integer, Float, DateTime, ...); without, the bare value.',
  },
);

/** Fields to store: any members; `id`, `ttl` and `ttl_update_on_access` are read by the server. */
export const RecordFields = Type.Object(
  {
    id: Type.Optional(Type.String({ description: 'The id to give the record (generated when absent).' })),
    ttl: Type.Optional(
      Type.Union([Type.String(), Type.Number()], {
        description: 'Time to live: "30s", "5m", "1h", seconds, or an RFC 3339 instant.',
      }),
    ),
    ttl_update_on_access: Type.Optional(Type.Boolean({ description: 'Reading the record restarts its TTL.' })),
  },
  {
    title: 'RecordFields',
    description: 'Fields of a record: bare values or typed {type, value} wrappers, any members.',
  },
);

export const Filter = Type.Object(
  {},
  {
    title: 'Filter',
    description:
      'A filter: {type: "Condition", content: {field, operator, value}}, {type: "Logical", content: ' +
      '{operator: "And"|"Or"|"Not", expressions: [...]}}, or the flat forms {field, operator, value}, ' +
      '{and: [...]}, {or: [...]}, {not: ...}. Operators: Eq, Ne, Gt, Gte, Lt, Lte, In, NotIn, Contains, ' +
      'StartsWith, EndsWith, Exists, Regex...',
  },
);

const SortKey = Type.Object(
  {
    field: Type.String(),
    ascending: Type.Optional(nullable(Type.Boolean())),
    order: Type.Optional(nullable(Type.String({ description: '"asc" or "desc".' }))),
  },
  { additionalProperties: false },
);

/** A non-negative integer count (limit, skip). */
const Count = Type.Integer({ minimum: 0 });

const FieldList = Type.Union([Type.Array(Type.String()), Type.String({ description: '"a,b"' })], {
  description: 'Field names: a list, or one text, comma-separated.',
});

/** The body of a find (and of an explain): filter, sort, page, projection, join. */
export const QueryBody = Type.Object(
  {
    filter: Type.Optional(nullable(Filter)),
    sort: Type.Optional(nullable(Type.Array(SortKey))),
    limit: Type.Optional(nullable(Count)),
    skip: Type.Optional(nullable(Count)),
    offset: Type.Optional(nullable(Count)),
    select_fields: Type.Optional(nullable(FieldList)),
    exclude_fields: Type.Optional(nullable(FieldList)),
    join: Type.Optional(
      nullable(
        Type.Object(
          {
            collections: Type.Union([Type.String(), Type.Array(Type.String())]),
            local_field: Type.String(),
            foreign_field: Type.String(),
            as_field: Type.String(),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    transaction_id: Type.Optional(nullable(Type.String())),
    bypass_cache: Type.Optional(nullable(Type.Boolean())),
    bypass_ripple: Type.Optional(nullable(Type.Boolean())),
  },
  { title: 'Query', additionalProperties: false, description: 'A query: {} matches every record.' },
);

/** Query parameters: the transaction a statement joins. */
export const InTransaction = {
  transaction_id: Type.String({ description: 'Run in this transaction (POST /api/transactions).' }),
};

/** Query parameter: a write not shipped to ripple peers. */
export const BypassRipple = {
  bypass_ripple: Type.String({ description: 'true or false (also 1 or 0): do not ship this write to peers.' }),
};

/** Query parameters: a projection of a record answer. */
export const Projection = {
  select_fields: Type.String({ description: 'Keep only these top-level fields (comma-separated; id always).' }),
  exclude_fields: Type.String({ description: 'Drop these top-level fields (comma-separated).' }),
};

/** `{status, ...members}`: the small answers of mutations. */
export function statusAnswer(status: string | readonly string[], members: Record<string, TSchema> = {}) {
  const statuses = typeof status === 'string' ? [status] : status;
  return Type.Object({
    status: statuses.length === 1 ? Type.Literal(statuses[0]!) : Type.Union(statuses.map((s) => Type.Literal(s))),
    ...members,
  });
}
