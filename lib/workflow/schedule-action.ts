/**
 * What a schedule does when it fires, read from its record in the clients'
 * spellings (protocol.md 2.14):
 * - a stored function by label: `function_label`, `functionName` or
 *   `scriptName` (PARITY_MATRIX), with `parameters` or `params` (an object);
 *   the TS clients' `action: "<label>"` names a function too, with `config`
 *   as its parameters;
 * - an HTTP request: `action: {type: "http", url, method?, headers?, body?}`
 *   (the Rust clients), sent through the outbound machinery and its host
 *   allow-list, like the HttpRequest step.
 * A record with none of these is refused at create/update (400).
 */
import { InvalidInput } from '../errors.js';
import { isPlainObject } from '../engine/index.js';

export type ScheduleAction =
  | { readonly type: 'function'; readonly label: string; readonly parameters: Record<string, unknown> }
  | { readonly type: 'http'; readonly url: string; readonly method: string; readonly headers: Record<string, string>; readonly body?: string };

const FUNCTION_NAMES = ['function_label', 'functionName', 'scriptName'] as const;

function parametersOf(s: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  for (const name of names) {
    const v = s[name];
    if (v === undefined || v === null) continue;
    if (!isPlainObject(v)) throw new InvalidInput(`'${name}' must be an object of parameter values`);
    return v;
  }
  return {};
}

function httpAction(a: Record<string, unknown>): ScheduleAction {
  if (typeof a.url !== 'string' || a.url === '') throw new InvalidInput("An http action needs a 'url' string");
  const method = a.method ?? 'GET';
  if (typeof method !== 'string') throw new InvalidInput("An http action's 'method' must be a string");
  const headers: Record<string, string> = {};
  if (a.headers !== undefined && a.headers !== null) {
    if (!isPlainObject(a.headers)) throw new InvalidInput("An http action's 'headers' must be an object of strings");
    for (const [k, v] of Object.entries(a.headers)) {
      if (typeof v !== 'string') throw new InvalidInput(`An http action's header '${k}' must be a string`);
      headers[k] = v;
    }
  }
  const body = a.body === undefined || a.body === null ? undefined : typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
  if (body !== undefined && typeof a.body !== 'string' && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json';
  }
  return { type: 'http', url: a.url, method: method.toUpperCase(), headers, ...(body !== undefined ? { body } : {}) };
}

/** The action of schedule record `s` (400 when it has none or a malformed one). */
export function actionOf(s: Record<string, unknown>): ScheduleAction {
  for (const name of FUNCTION_NAMES) {
    const v = s[name];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string' || v === '') throw new InvalidInput(`'${name}' must be a stored function's label`);
    return { type: 'function', label: v, parameters: parametersOf(s, ['parameters', 'params']) };
  }
  const a = s.action;
  if (typeof a === 'string' && a !== '') return { type: 'function', label: a, parameters: parametersOf(s, ['parameters', 'params', 'config']) };
  if (isPlainObject(a)) {
    if (a.type === 'http') return httpAction(a);
    if (a.type === 'function') {
      const label = a.function_label ?? a.label ?? a.name;
      if (typeof label !== 'string' || label === '') throw new InvalidInput("A function action needs a 'function_label' string");
      return { type: 'function', label, parameters: parametersOf(a, ['parameters', 'params']) };
    }
    throw new InvalidInput("A schedule 'action' object must have type 'http' or 'function'");
  }
  throw new InvalidInput("A schedule needs an action: 'function_label' (or 'functionName') or an 'action' ({type: \"http\", url, method})");
}
