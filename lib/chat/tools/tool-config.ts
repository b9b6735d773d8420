/**
 * The tool settings of one turn (protocol.md 2.12 ToolConfig): the
 * message's `tool_config` over the chat session's, plus the message's own
 * `max_iterations`, `client_tools` and `exclude_tools`. Strict: a wrong type
 * is InvalidInput, so a typo never silently turns tools off.
 */
import { InvalidInput } from '../../errors.js';
import { isPlainObject } from '../../engine/index.js';
import type { ToolChoice, ToolSpec } from '../providers/provider.js';

export const DEFAULT_MAX_ITERATIONS = 5;
export const MAX_ITERATIONS = 1000;
const MAX_TOOLS = 128;
const UNSAFE = new Set(['__proto__', 'constructor', 'prototype']);

export interface ToolConfig {
  readonly enabled: boolean;
  /** Server tools the model may use; undefined means all. */
  readonly allowedTools?: readonly string[];
  /** Collections the server tools may touch; undefined means any the caller may. */
  readonly allowedCollections?: readonly string[];
  readonly maxIterations: number;
  readonly allowWrite: boolean;
  readonly toolChoice?: ToolChoice;
}

/** The tools part of a message request. */
export interface MessageTools {
  readonly config?: Readonly<Record<string, unknown>>;
  readonly maxIterations?: number;
  readonly clientTools: readonly ToolSpec[];
  readonly excludeTools: readonly string[];
  /** Server tools that run only once the client approves the call (over a stream). */
  readonly confirmTools?: readonly string[];
}

export const NO_MESSAGE_TOOLS: MessageTools = Object.freeze({ clientTools: [], excludeTools: [] });

function names(value: unknown, what: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length > MAX_TOOLS || !value.every((x) => typeof x === 'string'))
    throw new InvalidInput(`'${what}' must be an array of strings`);
  return value as string[];
}

function toolChoice(value: unknown): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value) || typeof value.type !== 'string')
    throw new InvalidInput("'tool_config.tool_choice' must be {type: auto|none|required|tool, name?}");
  if (value.type === 'tool') {
    if (typeof value.name !== 'string' || value.name === '')
      throw new InvalidInput("'tool_config.tool_choice' of type 'tool' needs a 'name'");
    return { type: 'tool', name: value.name };
  }
  if (value.type !== 'auto' && value.type !== 'none' && value.type !== 'required')
    throw new InvalidInput(`Unknown tool_choice type '${value.type}'`);
  return { type: value.type };
}

function iterations(value: unknown, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_ITERATIONS)
    throw new InvalidInput(`'${what}' must be an integer between 1 and ${MAX_ITERATIONS}`);
  return value;
}

/** The turn's tool settings: the message's tool_config wins over the chat session's as a whole. */
export function resolveToolConfig(
  chatSessionToolConfig: Readonly<Record<string, unknown>> | null,
  message: MessageTools,
): ToolConfig {
  const raw = message.config ?? chatSessionToolConfig ?? {};
  if (!isPlainObject(raw)) throw new InvalidInput("'tool_config' must be an object");
  if (raw.enabled !== undefined && raw.enabled !== null && typeof raw.enabled !== 'boolean')
    throw new InvalidInput("'tool_config.enabled' must be true or false");
  if (
    raw.allow_write_operations !== undefined &&
    raw.allow_write_operations !== null &&
    typeof raw.allow_write_operations !== 'boolean'
  ) {
    throw new InvalidInput("'tool_config.allow_write_operations' must be true or false");
  }
  const allowedTools = names(raw.allowed_tools, 'tool_config.allowed_tools');
  const allowedCollections = names(raw.allowed_collections, 'tool_config.allowed_collections');
  const choice = toolChoice(raw.tool_choice);
  return {
    enabled: raw.enabled === true,
    ...(allowedTools ? { allowedTools } : {}),
    ...(allowedCollections ? { allowedCollections } : {}),
    maxIterations:
      message.maxIterations ?? iterations(raw.max_iterations, 'tool_config.max_iterations') ?? DEFAULT_MAX_ITERATIONS,
    allowWrite: raw.allow_write_operations === true,
    ...(choice ? { toolChoice: choice } : {}),
  };
}

/** `client_tools` of a message or a RegisterClientTools: `[{name, description?, parameters?}]`. */
export function parseClientTools(value: unknown, what = 'client_tools'): ToolSpec[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_TOOLS)
    throw new InvalidInput(`'${what}' must be an array of at most ${MAX_TOOLS} tools`);
  const seen = new Set<string>();
  return value.map((tool, index) => {
    if (!isPlainObject(tool))
      throw new InvalidInput(`${what}[${index}] must be an object {name, description?, parameters?}`);
    if (typeof tool.name !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(tool.name) || UNSAFE.has(tool.name)) {
      throw new InvalidInput(
        `${what}[${index}].name must be 1 to 64 letters, digits, '_', '.' or '-' (and not a prototype member name)`,
      );
    }
    if (seen.has(tool.name)) throw new InvalidInput(`${what}[${index}]: tool '${tool.name}' is given twice`);
    seen.add(tool.name);
    if (tool.description !== undefined && tool.description !== null && typeof tool.description !== 'string')
      throw new InvalidInput(`${what}[${index}].description must be a string`);
    if (tool.parameters !== undefined && tool.parameters !== null && !isPlainObject(tool.parameters))
      throw new InvalidInput(`${what}[${index}].parameters must be a JSON Schema object`);
    return {
      name: tool.name,
      description: typeof tool.description === 'string' ? tool.description : '',
      parameters: (isPlainObject(tool.parameters) ? tool.parameters : { type: 'object', properties: {} }) as Record<
        string,
        unknown
      >,
    };
  });
}

/** The message request's tool members (validated). */
export function parseMessageTools(body: Record<string, unknown>): MessageTools {
  const config = body.tool_config;
  if (config !== undefined && config !== null && !isPlainObject(config))
    throw new InvalidInput("'tool_config' must be an object");
  const maxIterations = iterations(body.max_iterations, 'max_iterations');
  const confirmTools = names(body.confirm_tools, 'confirm_tools');
  const tools: MessageTools = {
    ...(isPlainObject(config) ? { config } : {}),
    ...(maxIterations !== undefined ? { maxIterations } : {}),
    clientTools: parseClientTools(body.client_tools),
    excludeTools: names(body.exclude_tools, 'exclude_tools') ?? [],
    ...(confirmTools ? { confirmTools } : {}),
  };
  // Checked here, so a bad tool_config is a 400 before any stream opens.
  resolveToolConfig(null, tools);
  return tools;
}
