/** API key management (admin): create, list without secrets, update rights, revoke. */
import { describeKey, parseKeyRequest } from '../../../engine/index.js';
import { Unauthorized } from '../../../errors.js';
import { defineProcedure } from '../procedure.js';
import { param } from '../input.js';
import { nullable, statusAnswer, Type } from '../shapes.js';

const Grant = Type.Union([
  Type.Object(
    {
      read: Type.Optional(Type.Boolean()),
      write: Type.Optional(Type.Boolean()),
      writable_fields: Type.Optional(Type.Array(Type.String())),
      prefixes: Type.Optional(Type.Array(Type.String())),
    },
    { additionalProperties: false },
  ),
  Type.Array(Type.Enum(['read', 'write'])),
]);

/** The body of a key create or update. */
const KeyRequest = Type.Object(
  {
    name: Type.Optional(nullable(Type.String({ maxLength: 200 }))),
    admin: Type.Optional(nullable(Type.Boolean())),
    collection_permissions: Type.Optional(
      nullable(Type.Object({}, { additionalProperties: Grant, description: 'By collection name, or `*`.' })),
    ),
    kv_permissions: Type.Optional(nullable(Grant)),
    rate_limit: Type.Optional(nullable(Type.Integer({ minimum: 0, description: 'Requests per window; 0: none.' }))),
  },
  { additionalProperties: false },
);

/** A key as listed: never its secret. */
const KeyView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    admin: Type.Boolean(),
    created_at: Type.String(),
    collection_permissions: Type.Optional(Type.Object({})),
    kv_permissions: Type.Optional(Type.Object({})),
    rate_limit: Type.Optional(Type.Integer()),
  },
  { title: 'ApiKey' },
);

export const keysCreate = defineProcedure({
  name: 'keys.create',
  kind: 'mutation',
  access: 'admin',
  input: (raw) => parseKeyRequest(raw.body),
  schema: {
    summary: 'Create an API key',
    description: 'The secret (`key`) is shown in this answer only.',
    body: KeyRequest,
    response: Type.Intersect([KeyView, Type.Object({ key: Type.String() })]),
  },
  handler: async (req, ctx) => {
    const { key, record } = await ctx.keys.create(req);
    return { key, ...describeKey(record) };
  },
});

export const keysList = defineProcedure({
  name: 'keys.list',
  kind: 'query',
  access: 'admin',
  input: () => undefined,
  schema: { summary: 'List the API keys', response: Type.Object({ keys: Type.Array(KeyView) }) },
  handler: (_i, ctx) => ({ keys: ctx.keys.list().map(describeKey) }),
});

/** The caller's own key and rights, so a client (the console) can show what it may do instead of failing. */
export const keysMe = defineProcedure({
  name: 'keys.me',
  kind: 'query',
  access: 'user',
  input: () => undefined,
  schema: {
    summary: 'The key behind this token and its rights',
    description: 'Any valid token may ask; the answer never holds a secret.',
    response: KeyView,
  },
  handler: (_i, ctx) => {
    if (!ctx.principal) throw new Unauthorized('A token is needed to ask who it is');
    return describeKey(ctx.principal.key);
  },
});

export const keysUpdate = defineProcedure({
  name: 'keys.update',
  kind: 'mutation',
  access: 'admin',
  input: (raw) => ({ id: param(raw, 'id'), req: parseKeyRequest(raw.body) }),
  schema: {
    summary: "Replace an API key's rights",
    description: 'Absent members take the defaults of a new key; tokens already issued get the new rights.',
    body: KeyRequest,
    response: KeyView,
  },
  handler: async ({ id, req }, ctx) => describeKey(await ctx.keys.update(id, req)),
});

export const keysRevoke = defineProcedure({
  name: 'keys.revoke',
  kind: 'mutation',
  access: 'admin',
  input: (raw) => param(raw, 'id'),
  schema: {
    summary: 'Revoke an API key',
    description: 'Its tokens get 401 at once and its streams end.',
    response: statusAnswer('revoked', { id: Type.String() }),
  },
  handler: async (id, ctx) => {
    await ctx.keys.revoke(id);
    return { status: 'revoked', id };
  },
});
