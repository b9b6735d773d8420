/**
 * Public surface of the schema core: parse and update schemas, render them
 * for `GET /api/schemas/{c}`, and validate, default and coerce records.
 * Everything here is pure; the engine decides when to call it.
 */
export type { FieldDef, FieldFormat, Schema } from './types.js';
export {
  type SchemaWire,
  DEFAULT_PRIMARY_KEY,
  emptySchema,
  parseSchema,
  updateConstraints,
  replaceFields,
  setPrimaryKeyAlias,
  schemaToWire,
} from './schema.js';
export { FIELD_DEF_KEYS, parseFieldDef } from './field-def.js';
export { type FieldDefWire, fieldDefToWire } from './field-def-to-wire.js';
export {
  type IndexConfig,
  type IndexType,
  type TextIndexConfig,
  type VectorIndexConfig,
  type VectorAlgorithm,
  type VectorMetric,
  parseIndexConfig,
} from './index-config.js';
export { type FieldOption, OPTIONS_BY_TYPE, allowsOption } from './field-options.js';
export { MAX_FIELD_NAME_LENGTH, assertFieldName } from './field-name.js';
export { acceptsType } from './validation/accepts-type.js';
export { coerceValue, coerceToSchema } from './validation/coerce-to-schema.js';
export { fieldValueFromWire } from './field-value-from-wire.js';
export { type ValidationMode, validateRecord, applyDefaults } from './validation/validate-record.js';
export { findUniqueViolations } from './validation/unique-check.js';
