/**
 * Embed: vectors from the configured embedder (the offline one by default;
 * an OpenAI-compatible endpoint when `openai_api_key` / `openai_api_url` is
 * set, lib/chat/embedders.ts). Two forms:
 *
 * - `input_field`, `output_field?` (default `embedding`), `model?`: each
 *   working record's text at `input_field` (a field or dotted path of the
 *   record) is embedded and written at `output_field` of a copy of it, as a
 *   Vector value. Records whose input field is missing or null pass through
 *   unchanged; any other non-text value is a 400. With no working records
 *   the text is read from the parameters (ForEach frames first) and the
 *   step makes one record holding only the vector. All texts go to the
 *   embedder in one request per 2,048.
 * - The Go client's `texts` (a list of strings, or one placeholder naming
 *   one), `model?`: the working records are replaced by one record per text,
 *   `{text, embedding}` (`output_field` renames `embedding`).
 *
 * A provider failure fails the step with the classified failure as its
 * cause, as in Chat. It reaches outside, so a transactional function
 * refuses it.
 */
import { isPlainObject, MAX_EMBED_TEXTS, Tagged, type Fields, type Value } from '../../../engine/index.js';
import { InvalidInput, ProviderFailed } from '../../../errors.js';
import type { Template } from '../../template.js';
import { fieldInput, withField } from '../field-output.js';
import { step, type Execution, type MemberReader, type Row } from '../step.js';
import { checkedMember, optionalName, resolveMember, unwrap, type CheckedMember } from './ai-members.js';

type EmbedConfig =
  | { readonly form: 'field'; readonly input: readonly string[]; readonly output: readonly string[]; readonly model?: CheckedMember<string | undefined> }
  | { readonly form: 'texts'; readonly texts: Template; readonly output: readonly string[]; readonly model?: CheckedMember<string | undefined> };

export const embed = step<EmbedConfig>({
  type: 'Embed',
  access: 'outside',
  compile: (m) => {
    const model = checkedMember(m, 'model', optionalName);
    const output = m.optionalFieldPath('output_field') ?? ['embedding'];
    const common = { output, ...(model ? { model } : {}) };
    if (m.has('texts')) {
      if (m.has('input_field')) m.fail("give either 'input_field' (per working record) or 'texts', not both", 'texts');
      return { form: 'texts', texts: textsTemplate(m), ...common };
    }
    return { form: 'field', input: m.fieldPath('input_field'), ...common };
  },
  run: (cfg, rows, x) => (cfg.form === 'texts' ? embedTexts(cfg, rows, x) : embedFields(cfg, rows, x)),
});

function textsTemplate(m: MemberReader): Template {
  const texts = m.template('texts');
  if (texts.k === 'const') {
    try {
      textList(texts.v);
    } catch (err) {
      if (err instanceof InvalidInput) m.fail(err.message, 'texts');
      throw err;
    }
  }
  return texts;
}

async function embedTexts(cfg: Extract<EmbedConfig, { form: 'texts' }>, rows: readonly Row[], x: Execution): Promise<Row[]> {
  const row = rows[0];
  const texts = textList(x.resolve(cfg.texts, row));
  x.checkRecords(texts.length);
  const vectors = await vectorsOf(x, texts, resolveMember(x, cfg.model, row));
  return texts.map((text, i) => withField({ text }, cfg.output, vectors[i]!));
}

async function embedFields(cfg: Extract<EmbedConfig, { form: 'field' }>, rows: readonly Row[], x: Execution): Promise<Row[]> {
  const model = resolveMember(x, cfg.model, rows[0]);
  if (rows.length === 0) {
    const text = asText(fieldInput(x, cfg.input, undefined, 'input_field'), cfg.input);
    if (text === undefined) throw new InvalidInput(`'input_field': '${cfg.input.join('.')}' is null`);
    const [vector] = await vectorsOf(x, [text], model);
    return [withField({}, cfg.output, vector!)];
  }
  const texts: string[] = [];
  const at: number[] = [];
  rows.forEach((row, i) => {
    const text = asText(fieldOf(row, cfg.input), cfg.input);
    if (text !== undefined) { texts.push(text); at.push(i); }
  });
  const vectors = await vectorsOf(x, texts, model);
  const out: Row[] = [...rows];
  at.forEach((rowIndex, i) => { out[rowIndex] = withField(rows[rowIndex]!, cfg.output, vectors[i]!); });
  return out;
}

/** The record's own value at a dotted path (the parameters do not shadow it: each record embeds its own text). */
function fieldOf(row: Fields, path: readonly string[]): unknown {
  let v: unknown = row;
  for (const key of path) {
    if (!isPlainObject(v) || !Object.hasOwn(v, key)) return undefined;
    v = v[key];
  }
  return v;
}

/** Text to embed; undefined for a missing or null value. */
function asText(raw: unknown, path: readonly string[]): string | undefined {
  const v = unwrap(raw);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new InvalidInput(`'input_field': '${path.join('.')}' must hold text`);
  return v;
}

function textList(raw: unknown): string[] {
  const v = unwrap(raw);
  if (!Array.isArray(v) || v.length > MAX_EMBED_TEXTS) throw new InvalidInput(`'texts' must be a list of at most ${MAX_EMBED_TEXTS} strings`);
  return v.map((t, i) => {
    const text = unwrap(t);
    if (typeof text !== 'string') throw new InvalidInput(`'texts[${i}]' must be a string`);
    return text;
  });
}

/** Vectors for `texts` as Vector values, asked MAX_EMBED_TEXTS at a time. */
async function vectorsOf(x: Execution, texts: readonly string[], model: string | undefined): Promise<Value[]> {
  const out: Value[] = [];
  for (let start = 0; start < texts.length; start += MAX_EMBED_TEXTS) {
    const chunk = texts.slice(start, start + MAX_EMBED_TEXTS);
    const { vectors } = await x.ai.embed(chunk, model);
    if (vectors.length !== chunk.length) {
      throw new ProviderFailed(`The embedder answered ${vectors.length} vectors for ${chunk.length} texts`, 'provider_unavailable', 'embedder', null);
    }
    for (const v of vectors) out.push(new Tagged('Vector', Object.freeze([...v])));
  }
  return out;
}
