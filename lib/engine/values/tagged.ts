/**
 * The stored form of field values.
 *
 * Most values are stored bare (string, integer, float, boolean, null, plain
 * arrays and objects) because their type can be inferred on the way out.
 * An Integer beyond ±(2^53 - 1) is a bare bigint (int64.ts); every other
 * integer is a number.
 * Types that bare JSON cannot express are stored as a frozen `Tagged`
 * instance: DateTime, Decimal, UUID, Vector, Set, Binary, Bytes, Duration,
 * an explicit Number, and a Float whose value happens to be a safe integer.
 * Keeping common values bare is what keeps memory per record low.
 */

export const TYPE_NAMES = [
  'String',
  'Integer',
  'Float',
  'Number',
  'Boolean',
  'Array',
  'Object',
  'DateTime',
  'Decimal',
  'UUID',
  'Vector',
  'Set',
  'Binary',
  'Bytes',
  'Duration',
  'Null',
] as const;

export type TypeName = (typeof TYPE_NAMES)[number];

const TYPE_NAME_SET: ReadonlySet<string> = new Set(TYPE_NAMES);

export function isTypeName(name: unknown): name is TypeName {
  return typeof name === 'string' && TYPE_NAME_SET.has(name);
}

export type TaggedType =
  'DateTime' | 'Decimal' | 'UUID' | 'Vector' | 'Set' | 'Binary' | 'Bytes' | 'Duration' | 'Number' | 'Float';

/** Duration as the Rust client sends it; TS and Go send a number of milliseconds. */
export interface SecsNanos {
  readonly secs: number;
  readonly nanos: number;
}

export type TaggedPayload = string | number | readonly number[] | readonly Value[] | Uint8Array | SecsNanos;

export class Tagged {
  constructor(
    readonly type: TaggedType,
    readonly value: TaggedPayload,
  ) {
    Object.freeze(this);
  }
}

export type Value =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | Tagged
  | readonly Value[]
  | { readonly [field: string]: Value };

export type Fields = { readonly [field: string]: Value };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value) || value instanceof Uint8Array || value instanceof Tagged) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The type name a stored value reports in typed output. */
export function typeOf(value: Value): TypeName {
  if (value === null) return 'Null';
  if (value instanceof Tagged) return value.type;
  switch (typeof value) {
    case 'string':
      return 'String';
    case 'boolean':
      return 'Boolean';
    // A whole number beyond 2^53 came from a float: exact integers that large are bigints.
    case 'number':
      return Number.isSafeInteger(value) ? 'Integer' : 'Float';
    case 'bigint':
      return 'Integer';
    default:
      break;
  }
  if (value instanceof Uint8Array) return 'Binary';
  if (Array.isArray(value)) return 'Array';
  return 'Object';
}
