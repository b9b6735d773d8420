/**
 * The shapes of a schema and of its field definitions (types only).
 *
 * They live apart from the modules that parse, check and coerce them, so
 * each of those imports the shapes without importing the others back:
 * the schema folder has no import cycle.
 */
import type { TypeName, Value } from '../values/index.js';
import type { IndexConfig } from './index-config.js';

/** The formats a field may demand: strict RFC 4122 for UUID. */
export type FieldFormat = 'rfc4122';

/** A field's `field_type` and constraints, options in their stored form (see field-def.ts). */
export interface FieldDef {
  readonly field_type: TypeName;
  readonly required: boolean;
  readonly unique: boolean;
  /** Stored form, already converted to `field_type`. */
  readonly default?: Value;
  /** A length (bare number) for String/Array/Vector/Set, else a value of the field's type. */
  readonly min?: Value;
  readonly max?: Value;
  readonly regex?: string;
  readonly enums?: readonly Value[];
  /** UUID only: values must also be strict RFC 4122, not just the 8-4-4-4-12 shape. */
  readonly format?: FieldFormat;
  readonly index?: IndexConfig;
}

/** A collection's schema: immutable, every update returns a new one (see schema.ts). */
export interface Schema {
  readonly fields: Readonly<Record<string, FieldDef>>;
  readonly version: number;
  readonly created_at: string;
  readonly last_modified: string;
  readonly bypass_ripple: boolean;
  readonly primary_key_alias: string;
}
