/** `POST /api/embed` (protocol.md 2.12): `{text} | {texts}, model?` -> `{embeddings, model, dimensions}`. */
import { InvalidInput } from '../../../errors.js';
import { embedderFor } from '../../../chat/index.js';
import { checkLimit, MAX_EMBED_TEXTS, rejectUnknownMembers } from '../../../engine/index.js';
import { defineProcedure } from '../procedure.js';
import { bodyObject } from '../input.js';
import { Type } from '../shapes.js';

export const embed = defineProcedure({
  name: 'embed.create',
  kind: 'query',
  access: 'user',
  schema: {
    summary: 'Embed texts as vectors',
    description: 'The configured embedder (OpenAI with a key, else the offline one).',
    body: Type.Union([
      Type.Object({ text: Type.String(), model: Type.Optional(Type.String()) }, { additionalProperties: false }),
      Type.Object(
        { texts: Type.Array(Type.String(), { minItems: 1 }), model: Type.Optional(Type.String()) },
        { additionalProperties: false },
      ),
    ]),
    response: Type.Object({
      embeddings: Type.Array(Type.Array(Type.Number())),
      model: Type.String(),
      dimensions: Type.Integer(),
    }),
  },
  input: (raw) => {
    const body = bodyObject(raw);
    rejectUnknownMembers(body, ['text', 'texts', 'model']);
    let texts: string[];
    if (Array.isArray(body.texts)) checkLimit(body.texts.length, MAX_EMBED_TEXTS, 'texts', 'texts');
    if (typeof body.text === 'string' && body.texts === undefined) texts = [body.text];
    else if (Array.isArray(body.texts) && body.text === undefined && body.texts.every((t) => typeof t === 'string'))
      texts = body.texts as string[];
    else throw new InvalidInput('Body must be {text: string} or {texts: [string]}');
    if (texts.length === 0) throw new InvalidInput("'texts' must hold at least one text");
    if (body.model !== undefined && typeof body.model !== 'string') throw new InvalidInput("'model' must be a string");
    return { texts, model: body.model as string | undefined };
  },
  handler: async (input, ctx) => {
    const embedder = embedderFor(ctx.config.settings(), input.model);
    const embeddings = await embedder.embed(input.texts);
    return { embeddings, model: embedder.model, dimensions: embeddings[0]?.length ?? embedder.dimensions };
  },
});
