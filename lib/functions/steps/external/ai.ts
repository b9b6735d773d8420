/**
 * The language-model steps, Chat and Embed, through the port the server
 * supplies (`run.ai`, services.ts), bounded by the call's remaining wall
 * time. A provider failure fails the step with the classified failure as
 * its cause: the call answers the provider's classified status (502, 429
 * with Retry-After, 402, 400) and the step failure body carries
 * `error_kind`, `provider`, `provider_status` in `details`. Both reach
 * outside, so a transactional function refuses them.
 *
 * Their optional members (`model`, `provider`, `temperature`,
 * `max_tokens`) may be literals or placeholders: a literal is checked at
 * save (a 400 naming the member); a placeholder's value is checked with the
 * same rule when the step runs. Null or an empty string means "the
 * default".
 */
import { isPlainObject, MAX_EMBED_TEXTS, storedArray, Tagged, type Fields, type Value } from '../../../engine/index.js';
import { InvalidInput, ProviderFailed } from '../../../errors.js';
import { AI_ROLES, type AiMessage, type AiRole } from '../../services.js';
import type { Template } from '../../template.js';
import { step, type Execution, type MemberNames, type MemberReader, type Row } from '../step.js';
import { fieldInput, unwrap, withField } from '../working-records.js';

/** A member compiled as a template, with the rule its value must meet. */
interface CheckedMember<T> {
  readonly template: Template;
  readonly check: (value: unknown) => T;
}

/** The check of a checked member: throws InvalidInput naming `what`, answers undefined for null. */
type Check<T> = (value: unknown, what: string) => T;

function checkedMember<T>(members: MemberReader, names: MemberNames, check: Check<T>): CheckedMember<T> | undefined {
  const template = members.optionalTemplate(names);
  if (!template) return undefined;
  const what = typeof names === 'string' ? names : names[0]!;
  if (template.kind === 'const') failAtSave(members, what, () => check(template.value, what));
  return { template, check: (value) => check(value, what) };
}

function resolveMember<T>(run: Execution, member: CheckedMember<T> | undefined, row: Row | undefined): T | undefined {
  return member ? member.check(run.resolve(member.template, row)) : undefined;
}

/** Runs a run-time check at save: its InvalidInput becomes a save error naming `member`. */
function failAtSave(members: MemberReader, member: string, check: () => unknown): void {
  try {
    check();
  } catch (err) {
    if (err instanceof InvalidInput) members.fail(err.message, member);
    throw err;
  }
}

/** A name (model, provider): a string of at most 200 characters; null or "" is the default. */
const optionalName: Check<string | undefined> = (raw, what) => {
  const value = unwrap(raw);
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || value.length > 200)
    throw new InvalidInput(`'${what}' must be a name of at most 200 characters`);
  return value;
};

const optionalTemperature: Check<number | undefined> = (raw, what) => {
  const value = unwrap(raw);
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 2) {
    throw new InvalidInput(`'${what}' must be a number between 0 and 2`);
  }
  return value;
};

const MAX_COMPLETION_TOKENS = 1_000_000;

const optionalMaxTokens: Check<number | undefined> = (raw, what) => {
  const value = unwrap(raw);
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_COMPLETION_TOKENS) {
    throw new InvalidInput(`'${what}' must be an integer between 1 and ${MAX_COMPLETION_TOKENS}`);
  }
  return value;
};

/** Most messages one Chat step sends. */
const MAX_CHAT_MESSAGES = 1_000;

interface ChatConfig {
  readonly messages: Template;
  readonly model?: CheckedMember<string | undefined>;
  readonly provider?: CheckedMember<string | undefined>;
  readonly temperature?: CheckedMember<number | undefined>;
  readonly maxTokens?: CheckedMember<number | undefined>;
}

/**
 * Chat: one completion from a language-model provider. Members: `messages`
 * ([{role: system | user | assistant, content}], placeholders allowed in
 * each content, or the whole list as one placeholder naming a parameter),
 * `model?`, `temperature?` (0-2), `max_tokens?` (the Go client omits it),
 * and `provider?` (`openai`, `anthropic`, `perplexity`, `openai_compatible`
 * or `local`; default: the first configured provider, else the offline
 * `local` one, as raw completion does).
 *
 * Placeholders resolve against the first working record and the
 * parameters. The working records are replaced by one record
 * `{response, tokens_used}`: the answer's text and the tokens the provider
 * counted (prompt and completion together).
 */
export const chat = step<ChatConfig>({
  type: 'Chat',
  access: 'outside',
  compile: (members) => {
    const messages = members.template('messages');
    checkMessagesAtSave(
      members,
      messages.kind === 'const' ? messages.value : members.raw('messages'),
      messages.kind === 'const',
    );
    const model = checkedMember(members, 'model', optionalName);
    const provider = checkedMember(members, 'provider', optionalName);
    const temperature = checkedMember(members, 'temperature', optionalTemperature);
    const maxTokens = checkedMember(members, 'max_tokens', optionalMaxTokens);
    return {
      messages,
      ...(model ? { model } : {}),
      ...(provider ? { provider } : {}),
      ...(temperature ? { temperature } : {}),
      ...(maxTokens ? { maxTokens } : {}),
    };
  },
  run: async (config, rows, run) => {
    const row = rows[0];
    const messages = chatMessages(run.resolve(config.messages, row));
    const model = resolveMember(run, config.model, row);
    const provider = resolveMember(run, config.provider, row);
    const temperature = resolveMember(run, config.temperature, row);
    const maxTokens = resolveMember(run, config.maxTokens, row);
    const answer = await run.ai.complete({
      messages,
      ...(provider !== undefined ? { provider } : {}),
      ...(model !== undefined ? { model } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(maxTokens !== undefined ? { maxTokens } : {}),
    });
    return [{ response: answer.content, tokens_used: answer.totalTokens }];
  },
});

/**
 * A literal list is checked whole at save; one with placeholders for its shape and literal roles (contents wait for the
 * call).
 */
function checkMessagesAtSave(members: MemberReader, value: unknown, literalList: boolean): void {
  if (!literalList && !Array.isArray(value)) return; // one placeholder or Parameter naming the whole list
  failAtSave(members, 'messages', () => chatMessages(literalList ? value : (value as unknown[]).map(shapeOnly)));
}

/**
 * A message with placeholders as far as save time can tell: a placeholder role stands for any role, a present content
 * for text.
 */
function shapeOnly(item: unknown): unknown {
  if (!isPlainObject(item)) return item;
  const literalRole = typeof item.role === 'string' && !item.role.includes('{{');
  const role = literalRole || item.role === undefined ? item.role : 'user';
  return { role, content: item.content === undefined ? undefined : '' };
}

/**
 * The resolved `messages`: 1 to MAX_CHAT_MESSAGES of {role, content}; a number or boolean content reads as its text.
 */
function chatMessages(raw: unknown): AiMessage[] {
  const list = unwrap(raw);
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_CHAT_MESSAGES) {
    throw new InvalidInput(`'messages' must be a list of 1 to ${MAX_CHAT_MESSAGES} messages {role, content}`);
  }
  return list.map((item, i) => {
    if (!isPlainObject(item)) throw new InvalidInput(`'messages[${i}]' must be an object {role, content}`);
    const role = unwrap(item.role);
    if (typeof role !== 'string' || !(AI_ROLES as readonly string[]).includes(role)) {
      throw new InvalidInput(`'messages[${i}].role' must be one of ${AI_ROLES.join(', ')}`);
    }
    const content = unwrap(item.content);
    if (typeof content !== 'string' && typeof content !== 'number' && typeof content !== 'boolean') {
      throw new InvalidInput(`'messages[${i}].content' must be text`);
    }
    return { role: role as AiRole, content: String(content) };
  });
}

type EmbedConfig =
  | {
      readonly form: 'field';
      readonly input: readonly string[];
      readonly output: readonly string[];
      readonly model?: CheckedMember<string | undefined>;
    }
  | {
      readonly form: 'texts';
      readonly texts: Template;
      readonly output: readonly string[];
      readonly model?: CheckedMember<string | undefined>;
    };

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
 */
export const embed = step<EmbedConfig>({
  type: 'Embed',
  access: 'outside',
  compile: (members) => {
    const model = checkedMember(members, 'model', optionalName);
    const output = members.optionalFieldPath('output_field') ?? ['embedding'];
    const common = { output, ...(model ? { model } : {}) };
    if (members.has('texts')) {
      if (members.has('input_field'))
        members.fail("give either 'input_field' (per working record) or 'texts', not both", 'texts');
      const texts = members.template('texts');
      if (texts.kind === 'const') failAtSave(members, 'texts', () => textList(texts.value));
      return { form: 'texts', texts, ...common };
    }
    return { form: 'field', input: members.fieldPath('input_field'), ...common };
  },
  run: (config, rows, run) =>
    config.form === 'texts' ? embedTexts(config, rows, run) : embedFields(config, rows, run),
});

async function embedTexts(
  config: Extract<EmbedConfig, { form: 'texts' }>,
  rows: readonly Row[],
  run: Execution,
): Promise<Row[]> {
  const row = rows[0];
  const texts = textList(run.resolve(config.texts, row));
  run.checkRecords(texts.length);
  const vectors = await vectorsOf(run, texts, resolveMember(run, config.model, row));
  return texts.map((text, i) => withField({ text }, config.output, vectors[i]!));
}

async function embedFields(
  config: Extract<EmbedConfig, { form: 'field' }>,
  rows: readonly Row[],
  run: Execution,
): Promise<Row[]> {
  const model = resolveMember(run, config.model, rows[0]);
  if (rows.length === 0) {
    const text = embeddedText(fieldInput(run, config.input, undefined, 'input_field'), config.input);
    if (text === undefined) throw new InvalidInput(`'input_field': '${config.input.join('.')}' is null`);
    const [vector] = await vectorsOf(run, [text], model);
    return [withField({}, config.output, vector!)];
  }
  const texts: string[] = [];
  const at: number[] = [];
  rows.forEach((row, i) => {
    const text = embeddedText(ownField(row, config.input), config.input);
    if (text !== undefined) {
      texts.push(text);
      at.push(i);
    }
  });
  const vectors = await vectorsOf(run, texts, model);
  const out: Row[] = [...rows];
  at.forEach((rowIndex, i) => {
    out[rowIndex] = withField(rows[rowIndex]!, config.output, vectors[i]!);
  });
  return out;
}

/** The record's own value at a dotted path (the parameters do not shadow it: each record embeds its own text). */
function ownField(row: Fields, path: readonly string[]): unknown {
  let value: unknown = row;
  for (const key of path) {
    if (!isPlainObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/** Text to embed; undefined for a missing or null value. */
function embeddedText(raw: unknown, path: readonly string[]): string | undefined {
  const value = unwrap(raw);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InvalidInput(`'input_field': '${path.join('.')}' must hold text`);
  return value;
}

function textList(raw: unknown): string[] {
  const value = unwrap(raw);
  if (!Array.isArray(value) || value.length > MAX_EMBED_TEXTS) {
    throw new InvalidInput(`'texts' must be a list of at most ${MAX_EMBED_TEXTS} strings`);
  }
  return value.map((item, i) => {
    const text = unwrap(item);
    if (typeof text !== 'string') throw new InvalidInput(`'texts[${i}]' must be a string`);
    return text;
  });
}

/** Vectors for `texts` as Vector values, asked MAX_EMBED_TEXTS at a time. */
async function vectorsOf(run: Execution, texts: readonly string[], model: string | undefined): Promise<Value[]> {
  const out: Value[] = [];
  for (let start = 0; start < texts.length; start += MAX_EMBED_TEXTS) {
    const chunk = texts.slice(start, start + MAX_EMBED_TEXTS);
    const { vectors } = await run.ai.embed(chunk, model);
    if (vectors.length !== chunk.length) {
      const message = `The embedder answered ${vectors.length} vectors for ${chunk.length} texts`;
      throw new ProviderFailed(message, 'provider_unavailable', 'embedder', null);
    }
    for (const vector of vectors) out.push(new Tagged('Vector', storedArray([...vector])));
  }
  return out;
}
