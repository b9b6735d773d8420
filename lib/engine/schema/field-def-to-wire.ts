/**
 * FieldDef -> the wire shapes it travels in.
 *
 * `fieldDefToWire` is the `GET /api/schemas/{c}` form (protocol.md 2.2):
 * every member present, bare values, null/[] for unset options, `format` and
 * `index` only when set (schemas without them keep the shape clients know).
 * `fieldDefToRaw` is an input form that `parseFieldDef` reads back to an
 * identical definition; values travel as `{type, value}` wrappers so no type
 * inference can change them on the way.
 */
import { bareValue, typeOf, type TypeName, type Value } from '../values/index.js';
import type { FieldDef, FieldFormat } from './types.js';
import type { IndexConfig } from './index-config.js';

export interface FieldDefWire {
  field_type: TypeName;
  default: unknown;
  unique: boolean;
  required: boolean;
  enums: unknown[];
  max: unknown;
  min: unknown;
  regex: string | null;
  format?: FieldFormat;
  index?: IndexConfig;
}

/** The GET form of a definition; a fresh object that shares no mutable state with `def`. */
export function fieldDefToWire(def: FieldDef): FieldDefWire {
  const out: FieldDefWire = {
    field_type: def.field_type,
    default: def.default === undefined ? null : bareValue(def.default),
    unique: def.unique,
    required: def.required,
    enums: def.enums === undefined ? [] : def.enums.map(bareValue),
    max: def.max === undefined ? null : bareValue(def.max),
    min: def.min === undefined ? null : bareValue(def.min),
    regex: def.regex ?? null,
  };
  if (def.format !== undefined) out.format = def.format;
  if (def.index !== undefined) out.index = { ...def.index };
  return out;
}

/** An input form of `def` with only the members that are set. `parseFieldDef(fieldDefToRaw(def))` equals `def`. */
export function fieldDefToRaw(def: FieldDef): Record<string, unknown> {
  const out: Record<string, unknown> = { field_type: def.field_type, required: def.required, unique: def.unique };
  if (def.default !== undefined) out.default = wrap(def.default);
  if (def.min !== undefined) out.min = wrap(def.min);
  if (def.max !== undefined) out.max = wrap(def.max);
  if (def.regex !== undefined) out.regex = def.regex;
  if (def.enums !== undefined) out.enums = def.enums.map(wrap);
  if (def.format !== undefined) out.format = def.format;
  if (def.index !== undefined) out.index = { ...def.index };
  return out;
}

function wrap(value: Value): { type: TypeName; value: unknown } {
  return { type: typeOf(value), value: bareValue(value) };
}
