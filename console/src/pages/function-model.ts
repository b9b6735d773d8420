/** Stored functions as the console sees them: the wire shapes, the steps of a definition, the editable text. */
import { childPath } from '../json-paths.js';

export interface ParameterDefinition {
  required?: boolean;
  default?: unknown;
  description?: string;
  /** The clients' type hints (`param_type` in TS examples, `type` in JS ones); the server does not check them. */
  param_type?: string;
  type?: string;
}

/** A definition as GET /api/functions answers it. */
export interface StoredFunction {
  id: string;
  label: string;
  name?: string;
  description?: string;
  version?: string;
  parameters?: Record<string, ParameterDefinition>;
  functions?: unknown[];
  tags?: string[];
  http_method?: string;
  http_path?: string;
  created_at?: string;
  updated_at?: string;
  [member: string]: unknown;
}

/** One stage's statistics in a call's answer. */
export interface StageStat {
  stage: string;
  input_count: number;
  output_count: number;
  execution_time_ms: number;
}

/** The answer of POST /api/functions/{idOrLabel}. */
export interface CallResult {
  records?: Record<string, unknown>[];
  stats?: {
    input_count?: number;
    output_count?: number;
    execution_time_ms?: number;
    stages_executed?: number;
    stage_stats?: StageStat[];
  };
  [member: string]: unknown;
}

/** The members a definition may have at its top level (the roots of the paths in the server's save errors). */
export const DEFINITION_MEMBERS = [
  'label',
  'name',
  'description',
  'version',
  'parameters',
  'functions',
  'tags',
  'http_method',
  'http_path',
  'transaction_config',
];

/** The definition without the server-managed members, as the editor shows it. */
export function definitionText(fn: Record<string, unknown>): string {
  const { id: _id, created_at: _c, updated_at: _u, ...definition } = fn;
  return JSON.stringify(definition, null, 2);
}

/** A new function's starting text. */
export const NEW_DEFINITION = JSON.stringify(
  {
    label: 'my_function',
    name: 'My function',
    description: '',
    parameters: { limit: { required: false, default: 10, description: 'How many records' } },
    functions: [
      { type: 'FindAll', collection: 'my_collection' },
      { type: 'Limit', limit: '{{limit}}' },
    ],
  },
  null,
  2,
);

export interface StepEntry {
  path: string;
  type: string;
  depth: number;
}

function isStep(v: unknown): v is { type: string } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { type?: unknown }).type === 'string';
}

/**
 * Every step of a definition with its path, in text order: the top-level `functions` and any list of steps inside a
 * step (then_functions, else_functions, a ForEach's functions, a Parallel's branches...).
 */
export function stepsOf(definition: unknown): StepEntry[] {
  const out: StepEntry[] = [];
  const walkList = (list: unknown[], path: string, depth: number) =>
    list.forEach((step, i) => {
      if (!isStep(step)) return;
      const at = childPath(path, i);
      out.push({ path: at, type: step.type, depth });
      for (const [member, value] of Object.entries(step))
        if (Array.isArray(value) && value.some(isStep)) walkList(value, childPath(at, member), depth + 1);
    });
  const functions = (definition as { functions?: unknown } | null)?.functions;
  if (Array.isArray(functions)) walkList(functions, 'functions', 0);
  return out;
}

/** The type hint of a parameter, if its definition gives one. */
export function parameterType(p: ParameterDefinition): string | undefined {
  return p.param_type ?? p.type;
}

/** What a person typed for a parameter, as the value to send: text for string-like types, else JSON when it parses. */
export function parameterValue(text: string, p: ParameterDefinition): unknown {
  const type = parameterType(p)?.toLowerCase();
  if (type === 'string' || type === 'datetime' || type === 'date') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A short text for a parameter's default, for a placeholder. */
export function defaultText(p: ParameterDefinition): string | undefined {
  if (p.default === undefined) return undefined;
  return typeof p.default === 'string' ? p.default : JSON.stringify(p.default);
}
