/**
 * Templates: JSON values of a definition with `{{placeholders}}` and
 * `{type: "Parameter", name}` references, compiled once at save time and
 * resolved per call (product.md call rule 4, protocol.md 4.2).
 *
 * - A string that is exactly one placeholder resolves to the value itself,
 *   keeping its JSON type (`"limit": "{{page_size}}"` is a number).
 * - Placeholders inside longer text are substituted as text.
 * - A Parameter reference resolves to the parameter's value as sent,
 *   typed wrappers included.
 * - A typed wrapper may hold a placeholder (`{type: "Decimal", value:
 *   "{{total}}"}`); when the value found is itself a wrapper its inner value
 *   is used, so the outer type wins.
 * - Names are dotted paths (`{{lock.token}}`); a segment that is a prototype
 *   key (`__proto__`, `constructor`, `prototype`) is refused at save.
 * - `{{env.NAME}}` reads a server environment variable on the allow-list
 *   (protocol.md 4.2). It is its own kind, decided at save: the compiler
 *   checks the name against the allow-list it is given (a 400 naming the
 *   variable, never its value), and the scope's `env` reads it per call and
 *   checks the allow-list again, so a name removed since the save fails
 *   closed. `env` is therefore not a parameter or field name in two-segment
 *   placeholders.
 *
 * A template without placeholders compiles to a constant, so resolving it
 * costs nothing.
 */
import { InvalidInput } from '../errors.js';
import { invalidAt } from './definition-path.js';
import { isPlainObject, isTypedWrapper } from '../engine/index.js';

export type Template =
  | { readonly kind: 'const'; readonly value: unknown }
  | { readonly kind: 'placeholder'; readonly path: readonly string[] }
  | { readonly kind: 'param'; readonly name: string }
  | { readonly kind: 'env'; readonly name: string }
  | { readonly kind: 'text'; readonly parts: readonly TextPart[] }
  | { readonly kind: 'array'; readonly items: readonly Template[] }
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, Template])[]; readonly typed: boolean };

/** A piece of text: literal text, a placeholder path, or an environment variable. */
export type TextPart = string | readonly string[] | { readonly env: string };

/** Where names are looked up when a template is resolved. `found` false: nothing by that name. */
export interface TemplateScope {
  lookup(path: readonly string[]): { found: boolean; value: unknown };
  param(name: string): unknown;
  /** An allow-listed environment variable's value; throws (naming it, never a value) when not allowed or unset. */
  env?(name: string): string;
}

/** What the compiler checks Parameter references and environment names against. */
export interface TemplateContext {
  /** Declared parameter names (plus system-supplied ones); undefined accepts any name. */
  readonly parameters?: ReadonlySet<string>;
  /** True when `{{env.name}}` may be read; undefined leaves the check to run time. */
  readonly envAllowed?: (name: string) => boolean;
}

const HOSTILE: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
const SEGMENT = /^[A-Za-z0-9_$-]{1,128}$/;
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const MAX_TEMPLATE_DEPTH = 64;
/** What an environment variable name may look like (POSIX portable names). */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export function isHostileName(name: string): boolean {
  return HOSTILE.has(name);
}

/** Parses `a.b.c` into segments; InvalidInput naming `where` when malformed or hostile. */
export function parsePlaceholderName(raw: string, where: string): string[] {
  const name = raw.trim();
  const segments = name.split('.');
  if (name === '' || segments.some((s) => !SEGMENT.test(s))) throw invalidAt(where, `bad placeholder '{{${raw}}}'`);
  const hostile = segments.find((s) => HOSTILE.has(s));
  if (hostile !== undefined) throw invalidAt(where, `placeholder '{{${raw}}}' names the forbidden member '${hostile}'`);
  return segments;
}

export function isParameterRef(value: unknown): value is { type: 'Parameter'; name: string } {
  return isPlainObject(value) && value.type === 'Parameter' && typeof value.name === 'string' && !('value' in value);
}

export function compileTemplate(raw: unknown, path: string, context: TemplateContext = {}): Template {
  return compileAt(raw, path, context, 0);
}

function compileAt(raw: unknown, path: string, context: TemplateContext, depth: number): Template {
  if (depth > MAX_TEMPLATE_DEPTH) throw invalidAt(path, `nested deeper than ${MAX_TEMPLATE_DEPTH} levels`);
  if (typeof raw === 'string') return compileString(raw, path, context);
  if (Array.isArray(raw)) {
    const items = raw.map((item, i) => compileAt(item, `${path}[${i}]`, context, depth + 1));
    return items.every((t) => t.kind === 'const') ? constant(raw) : { kind: 'array', items };
  }
  if (isParameterRef(raw)) {
    if (HOSTILE.has(raw.name)) throw invalidAt(path, `parameter name '${raw.name}' is forbidden`);
    if (context.parameters && !context.parameters.has(raw.name))
      throw invalidAt(path, `unknown parameter '${raw.name}'`);
    return { kind: 'param', name: raw.name };
  }
  if (isPlainObject(raw)) {
    const entries: (readonly [string, Template])[] = [];
    for (const key of Object.keys(raw)) {
      if (HOSTILE.has(key)) throw invalidAt(path, `forbidden member name '${key}'`);
      entries.push([key, compileAt(raw[key], `${path}.${key}`, context, depth + 1)]);
    }
    if (entries.every(([, t]) => t.kind === 'const')) return constant(raw);
    return { kind: 'object', entries, typed: isTypedWrapper(raw) };
  }
  return constant(raw);
}

function compileString(text: string, path: string, context: TemplateContext): Template {
  if (!text.includes('{{')) return constant(text);
  const parts: TextPart[] = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    if (match.index! > last) parts.push(text.slice(last, match.index));
    const name = parsePlaceholderName(match[1]!, path);
    parts.push(name[0] === 'env' && name.length === 2 ? { env: checkEnvName(name[1]!, path, context) } : name);
    last = match.index! + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  if (parts.length === 0) return constant(text);
  if (parts.length === 1 && typeof parts[0] !== 'string') {
    const only = parts[0]!;
    return 'env' in only ? { kind: 'env', name: only.env } : { kind: 'placeholder', path: only as readonly string[] };
  }
  return { kind: 'text', parts };
}

/** `{{env.NAME}}` at save: a portable name, on the allow-list when the compiler has one. */
function checkEnvName(name: string, path: string, context: TemplateContext): string {
  if (!ENV_NAME.test(name)) throw invalidAt(path, `bad environment variable name '${name}'`);
  if (context.envAllowed && !context.envAllowed(name)) {
    throw new InvalidInput(
      `${path}: environment variable '${name}' is not on the allow-list ` +
        '(function_env_allowlist or EDDYDB_FUNCTION_ENV)',
    );
  }
  return name;
}

/** True when the template is exactly one `{{env.NAME}}` placeholder. */
export function isEnvTemplate(template: Template): template is { kind: 'env'; name: string } {
  return template.kind === 'env';
}

function constant(value: unknown): Template {
  return { kind: 'const', value };
}

/** True when resolving the template needs no scope. */
export function isConstant(template: Template): template is { kind: 'const'; value: unknown } {
  return template.kind === 'const';
}

/** Resolves a template. Unknown placeholder names are a 400 naming them. */
export function resolveTemplate(template: Template, scope: TemplateScope): unknown {
  switch (template.kind) {
    case 'const':
      return template.value;
    case 'param':
      return scope.param(template.name);
    case 'env':
      return envOrFail(scope, template.name);
    case 'placeholder':
      return lookupOrFail(scope, template.path);
    case 'text':
      return template.parts.map((part) => textOfPart(scope, part)).join('');
    case 'array':
      return template.items.map((item) => resolveTemplate(item, scope));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, item] of template.entries) {
        const resolved = resolveTemplate(item, scope);
        // A typed wrapper's value taken from a wrapped parameter: the outer type wins.
        out[key] = template.typed && key === 'value' && isTypedWrapper(resolved) ? resolved.value : resolved;
      }
      return out;
    }
  }
}

function textOfPart(scope: TemplateScope, part: TextPart): string {
  if (typeof part === 'string') return part;
  return 'env' in part ? envOrFail(scope, part.env) : asText(lookupOrFail(scope, part as readonly string[]));
}

function envOrFail(scope: TemplateScope, name: string): string {
  if (!scope.env) throw new InvalidInput(`Environment variable '${name}' cannot be read here`);
  return scope.env(name);
}

function lookupOrFail(scope: TemplateScope, path: readonly string[]): unknown {
  const hit = scope.lookup(path);
  if (!hit.found) throw new InvalidInput(`Placeholder '{{${path.join('.')}}}' has no value`);
  return hit.value;
}

/** How a value reads inside text: strings as they are, wrappers by their value, the rest as JSON. */
export function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (isTypedWrapper(value)) return asText(value.value);
  return JSON.stringify(value, (_key, member) => (typeof member === 'bigint' ? member.toString() : member));
}
