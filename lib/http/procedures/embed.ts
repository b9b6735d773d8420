/** `POST /api/embed` (protocol.md 2.12): `{text} | {texts}, model?` -> `{embeddings, model, dimensions}`. */
import { InvalidInput } from '../../errors.js';
import { embedderFor } from '../../chat/index.js';
import { defineProcedure } from '../procedure.js';
import { bodyObject } from '../input.js';

const MAX_TEXTS = 2048;

export const embed = defineProcedure({
  name: 'embed.create', kind: 'query', access: 'user',
  input: (raw) => {
    const body = bodyObject(raw);
    for (const k of Object.keys(body)) if (!['text', 'texts', 'model'].includes(k)) throw new InvalidInput(`Unknown member '${k}'; expected text, texts, model`);
    let texts: string[];
    if (typeof body.text === 'string' && body.texts === undefined) texts = [body.text];
    else if (Array.isArray(body.texts) && body.text === undefined && body.texts.every((t) => typeof t === 'string')) texts = body.texts as string[];
    else throw new InvalidInput('Body must be {text: string} or {texts: [string]}');
    if (texts.length === 0 || texts.length > MAX_TEXTS) throw new InvalidInput(`Between 1 and ${MAX_TEXTS} texts per request`);
    if (body.model !== undefined && typeof body.model !== 'string') throw new InvalidInput("'model' must be a string");
    return { texts, model: body.model as string | undefined };
  },
  handler: async (i, ctx) => {
    const embedder = embedderFor(ctx.db.settings(), i.model);
    const embeddings = await embedder.embed(i.texts);
    return { embeddings, model: embedder.model, dimensions: embeddings[0]?.length ?? embedder.dimensions };
  },
});
