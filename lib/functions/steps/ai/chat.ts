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
 * counted (prompt and completion together). A provider failure fails the
 * step with the classified failure as its cause: the call answers the
 * provider's classified status (502, 429 with Retry-After, 402, 400) and
 * the step failure body carries `error_kind`, `provider`, `provider_status`
 * in `details`. It reaches outside, so a transactional function refuses it.
 */
import { isPlainObject } from '../../../engine/index.js';
import { InvalidInput } from '../../../errors.js';
import type { Template } from '../../template.js';
import { step, type MemberReader } from '../step.js';
import { AI_ROLES, type AiMessage, type AiRole } from '../../services.js';
import {
  checkedMember, optionalMaxTokens, optionalName, optionalTemperature, resolveMember, unwrap, type CheckedMember,
} from './ai-members.js';

/** Most messages one Chat step sends. */
export const MAX_CHAT_MESSAGES = 1_000;

interface ChatConfig {
  readonly messages: Template;
  readonly model?: CheckedMember<string | undefined>;
  readonly provider?: CheckedMember<string | undefined>;
  readonly temperature?: CheckedMember<number | undefined>;
  readonly maxTokens?: CheckedMember<number | undefined>;
}

export const chat = step<ChatConfig>({
  type: 'Chat',
  access: 'outside',
  compile: (m) => {
    const messages = m.template('messages');
    checkAtSave(m, messages.k === 'const' ? messages.v : m.raw('messages'), messages.k === 'const');
    const model = checkedMember(m, 'model', optionalName);
    const provider = checkedMember(m, 'provider', optionalName);
    const temperature = checkedMember(m, 'temperature', optionalTemperature);
    const maxTokens = checkedMember(m, 'max_tokens', optionalMaxTokens);
    return {
      messages, ...(model ? { model } : {}), ...(provider ? { provider } : {}),
      ...(temperature ? { temperature } : {}), ...(maxTokens ? { maxTokens } : {}),
    };
  },
  run: async (cfg, rows, x) => {
    const row = rows[0];
    const messages = chatMessages(x.resolve(cfg.messages, row));
    const model = resolveMember(x, cfg.model, row);
    const provider = resolveMember(x, cfg.provider, row);
    const temperature = resolveMember(x, cfg.temperature, row);
    const maxTokens = resolveMember(x, cfg.maxTokens, row);
    const answer = await x.ai.complete({
      messages,
      ...(provider !== undefined ? { provider } : {}), ...(model !== undefined ? { model } : {}),
      ...(temperature !== undefined ? { temperature } : {}), ...(maxTokens !== undefined ? { maxTokens } : {}),
    });
    return [{ response: answer.content, tokens_used: answer.totalTokens }];
  },
});

/** A literal list is checked whole at save; one with placeholders for its shape and literal roles (contents wait for the call). */
function checkAtSave(m: MemberReader, value: unknown, literalList: boolean): void {
  if (!literalList && !Array.isArray(value)) return; // one placeholder or Parameter naming the whole list
  try {
    chatMessages(literalList ? value : (value as unknown[]).map(shapeOnly));
  } catch (err) {
    if (err instanceof InvalidInput) m.fail(err.message, 'messages');
    throw err;
  }
}

/** A message with placeholders as far as save time can tell: a placeholder role stands for any role, a present content for text. */
function shapeOnly(item: unknown): unknown {
  if (!isPlainObject(item)) return item;
  const literalRole = typeof item.role === 'string' && !item.role.includes('{{');
  const role = literalRole || item.role === undefined ? item.role : 'user';
  return { role, content: item.content === undefined ? undefined : '' };
}

/** The resolved `messages`: 1 to MAX_CHAT_MESSAGES of {role, content}; a number or boolean content reads as its text. */
export function chatMessages(raw: unknown): AiMessage[] {
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
