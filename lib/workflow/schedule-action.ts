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
  | {
      readonly type: 'http';
      readonly url: string;
      readonly method: string;
      readonly headers: Record<string, string>;
      readonly body?: string;
    };

const FUNCTION_NAMES = ['function_label', 'functionName', 'scriptName'] as const;

function parametersOf(record: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  for (const name of names) {
    const value = record[name];
    if (value === undefined || value === null) continue;
    if (!isPlainObject(value)) throw new InvalidInput(`'${name}' must be an object of parameter values`);
    return value;
  }
  return {};
}

function httpAction(action: Record<string, unknown>): ScheduleAction {
  if (typeof action.url !== 'string' || action.url === '')
    throw new InvalidInput("An http action needs a 'url' string");
  const method = action.method ?? 'GET';
  if (typeof method !== 'string') throw new InvalidInput("An http action's 'method' must be a string");
  const headers: Record<string, string> = {};
  if (action.headers !== undefined && action.headers !== null) {
    if (!isPlainObject(action.headers))
      throw new InvalidInput("An http action's 'headers' must be an object of strings");
    for (const [name, value] of Object.entries(action.headers)) {
      if (typeof value !== 'string') throw new InvalidInput(`An http action's header '${name}' must be a string`);
      headers[name] = value;
    }
  }
  const given = action.body;
  const body =
    given === undefined || given === null ? undefined : typeof given === 'string' ? given : JSON.stringify(given);
  if (
    body !== undefined &&
    typeof given !== 'string' &&
    !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')
  ) {
    headers['content-type'] = 'application/json';
  }
  return {
    type: 'http',
    url: action.url,
    method: method.toUpperCase(),
    headers,
    ...(body !== undefined ? { body } : {}),
  };
}

/** The action of schedule record `schedule` (400 when it has none or a malformed one). */
export function actionOf(schedule: Record<string, unknown>): ScheduleAction {
  for (const name of FUNCTION_NAMES) {
    const label = schedule[name];
    if (label === undefined || label === null) continue;
    if (typeof label !== 'string' || label === '')
      throw new InvalidInput(`'${name}' must be a stored function's label`);
    return { type: 'function', label, parameters: parametersOf(schedule, ['parameters', 'params']) };
  }
  const action = schedule.action;
  if (typeof action === 'string' && action !== '') {
    return { type: 'function', label: action, parameters: parametersOf(schedule, ['parameters', 'params', 'config']) };
  }
  if (isPlainObject(action)) {
    if (action.type === 'http') return httpAction(action);
    if (action.type === 'function') {
      const label = action.function_label ?? action.label ?? action.name;
      if (typeof label !== 'string' || label === '')
        throw new InvalidInput("A function action needs a 'function_label' string");
      return { type: 'function', label, parameters: parametersOf(action, ['parameters', 'params']) };
    }
    throw new InvalidInput("A schedule 'action' object must have type 'http' or 'function'");
  }
  throw new InvalidInput(
    "A schedule needs an action: 'function_label' (or 'functionName') or an 'action' ({type: \"http\", url, method})",
  );
}
