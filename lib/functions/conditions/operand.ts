/**
 * The value a Field* or Count* condition compares with.
 *
 * A definition value is either constant or holds placeholders. A placeholder
 * is a string containing `{{` (text substitution, `{{env.NAME}}` included)
 * or an object `{type: "Parameter", name: <string>}` anywhere inside the
 * value. A constant is converted to an engine value once, at compile time,
 * with the engine's wire rules (typed wrappers such as `{type: "DateTime",
 * value}`, exact 64-bit integers), so a bad constant fails the save. A value
 * with placeholders is handed to the caller's `resolve` at each evaluation
 * and converted then; a result that cannot be converted throws InvalidInput
 * naming the path (the run's step error).
 */
import { assertSafeKey, fieldFromWire, isPlainObject, Tagged, type Value } from '../../engine/index.js';
import { atPath, invalidAt } from '../definition-path.js';
import type { CompileContext, ResolveValue } from './condition.js';

/** Nesting bound of a condition value, as for record values. */
const MAX_VALUE_DEPTH = 64;

export interface Operand {
  /** True when the definition's value holds no placeholder (`get` then never calls `resolve`). */
  readonly constant: boolean;
  /** The value to compare with; calls `resolve` only when the definition's value holds placeholders. */
  readonly get: (resolve: ResolveValue) => Value;
}

/**
 * Compiles a definition value. Throws InvalidInput starting with `path` for a
 * hostile member name, nesting deeper than 64 levels, or a constant the
 * engine cannot store.
 */
export function compileOperand(raw: unknown, path: string, ctx: CompileContext): Operand {
  if (holdsPlaceholder(raw, path, 0)) {
    const prepared = ctx.prepareValue(raw, path);
    return Object.freeze({ constant: false, get: (resolve: ResolveValue) => operandValue(resolve(prepared), path) });
  }
  const value = operandValue(raw, path);
  return Object.freeze({ constant: true, get: () => value });
}

/**
 * True when `raw` holds a placeholder. Also refuses `__proto__`,
 * `constructor` and `prototype` member names and over-deep nesting, so a
 * value given to `prepareValue` and `resolve` is as safe as a constant.
 */
export function holdsPlaceholder(raw: unknown, path: string, depth: number): boolean {
  if (depth > MAX_VALUE_DEPTH) throw invalidAt(path, `value nested deeper than ${MAX_VALUE_DEPTH} levels`);
  if (typeof raw === 'string') return raw.includes('{{');
  let found = false;
  if (Array.isArray(raw)) {
    raw.forEach((item, i) => { found = holdsPlaceholder(item, `${path}[${i}]`, depth + 1) || found; });
    return found;
  }
  if (!isPlainObject(raw)) return false;
  if (raw.type === 'Parameter' && typeof raw.name === 'string') found = true;
  for (const key of Object.keys(raw)) {
    atPath(path, () => assertSafeKey(key, path));
    found = holdsPlaceholder(raw[key], `${path}.${key}`, depth + 1) || found;
  }
  return found;
}

/** A wire value (or an engine value a resolver returned) as an engine value; undefined counts as null. */
function operandValue(v: unknown, path: string): Value {
  if (v === undefined || v === null) return null;
  if (v instanceof Tagged) return v;
  return atPath(path, () => fieldFromWire(v, 'value'));
}
