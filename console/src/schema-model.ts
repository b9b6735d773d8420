/**
 * A collection's schema as the console edits it: the server's shapes (GET /api/schemas/{c}), which options each
 * field_type may carry (mirroring lib/engine/schema/field-options.ts), and the conversion between a field
 * definition and the text boxes of the field form. The server still decides; its errors are shown at the field.
 */
export const FIELD_TYPES = [
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
export type FieldType = (typeof FIELD_TYPES)[number];

export type FieldOption = 'min' | 'max' | 'regex' | 'enums' | 'format';

const RANGE: FieldOption[] = ['min', 'max'];
const NUMERIC: FieldOption[] = ['min', 'max', 'enums'];

/** The options each field_type accepts besides required, unique, default and index. */
export const OPTIONS_BY_TYPE: Record<FieldType, FieldOption[]> = {
  String: ['min', 'max', 'regex', 'enums'],
  Integer: NUMERIC,
  Float: NUMERIC,
  Number: NUMERIC,
  Boolean: [],
  Array: RANGE,
  Object: [],
  DateTime: RANGE,
  Decimal: RANGE,
  UUID: ['format'],
  Vector: RANGE,
  Set: RANGE,
  Binary: [],
  Bytes: [],
  Duration: [],
  Null: [],
};

/** Types whose min/max bound a length (of text or of a list) rather than a value. */
export const LENGTH_BOUNDED: ReadonlySet<FieldType> = new Set<FieldType>(['String', 'Array', 'Vector', 'Set']);

/** Types whose values are typed as text (a JSON-looking text stays a string). */
const TEXTUAL: ReadonlySet<FieldType> = new Set<FieldType>(['String', 'UUID', 'DateTime', 'Duration', 'Decimal']);

export type IndexKind = '' | 'btree' | 'hash' | 'text' | 'vector';

/** Index kinds a field of this type may declare. */
export function indexKindsFor(type: FieldType): IndexKind[] {
  const kinds: IndexKind[] = ['', 'btree', 'hash'];
  if (type === 'String') kinds.push('text');
  if (type === 'Vector' || type === 'Array') kinds.push('vector');
  return kinds;
}

export const VECTOR_ALGORITHMS = ['hnsw', 'flat', 'ivf'];
export const VECTOR_METRICS = ['cosine', 'euclidean', 'dotproduct'];

export interface IndexWire {
  type: 'btree' | 'hash' | 'text' | 'vector';
  language?: string;
  analyzer?: string;
  algorithm?: string;
  metric?: string;
  m?: number;
  ef_construction?: number;
  dimensions?: number;
}

/** A field definition as GET /api/schemas/{c} shows it: every member present, null or [] when unset. */
export interface FieldWire {
  field_type: FieldType;
  required: boolean;
  unique: boolean;
  default: unknown;
  min: unknown;
  max: unknown;
  regex: string | null;
  enums: unknown[];
  format?: string;
  index?: IndexWire;
}

export interface SchemaWire {
  fields: Record<string, FieldWire>;
  version: number;
  created_at?: string;
  last_modified?: string;
  primary_key_alias?: string;
}

/** The field form's state: every option as the text in its box. */
export interface FieldDraft {
  name: string;
  field_type: FieldType;
  required: boolean;
  unique: boolean;
  default: string;
  min: string;
  max: string;
  regex: string;
  /** One allowed value per line. */
  enums: string;
  format: '' | 'rfc4122';
  index: IndexKind;
  language: string;
  analyzer: string;
  algorithm: string;
  metric: string;
  m: string;
  ef_construction: string;
  dimensions: string;
}

export function emptyDraft(): FieldDraft {
  return {
    name: '',
    field_type: 'String',
    required: false,
    unique: false,
    default: '',
    min: '',
    max: '',
    regex: '',
    enums: '',
    format: '',
    index: '',
    language: '',
    analyzer: '',
    algorithm: '',
    metric: '',
    m: '',
    ef_construction: '',
    dimensions: '',
  };
}

/** A stored value as the text of its box: text as it is, anything else as JSON. */
function valueText(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The form state of a stored definition. */
export function draftOf(name: string, def: FieldWire): FieldDraft {
  const idx = def.index;
  const num = (n: number | undefined) => (n === undefined ? '' : String(n));
  return {
    ...emptyDraft(),
    name,
    field_type: def.field_type,
    required: def.required,
    unique: def.unique,
    default: valueText(def.default),
    min: valueText(def.min),
    max: valueText(def.max),
    regex: def.regex ?? '',
    enums: (def.enums ?? []).map(valueText).join('\n'),
    format: def.format === 'rfc4122' ? 'rfc4122' : '',
    index: idx?.type ?? '',
    language: idx?.language ?? '',
    analyzer: idx?.analyzer ?? '',
    algorithm: idx?.algorithm ?? '',
    metric: idx?.metric ?? '',
    m: num(idx?.m),
    ef_construction: num(idx?.ef_construction),
    dimensions: num(idx?.dimensions),
  };
}

/** A typed box's value for a field of `type`: text for textual types, else JSON when it parses, else the text. */
export function valueFor(type: FieldType, text: string): unknown {
  if (TEXTUAL.has(type)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A min or max box's value: a number for lengths and numbers, text for dates and decimals. */
function boundFor(type: FieldType, text: string): unknown {
  // Dates are RFC 3339 text; decimals stay text so that no digit is lost to a float.
  if (type === 'DateTime' || type === 'Decimal') return text;
  const n = Number(text);
  return text.trim() !== '' && Number.isFinite(n) ? n : text;
}

function positiveInt(text: string): number | string {
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
}

/** The index member of a definition from the form, or undefined for none. */
function indexOf(d: FieldDraft): IndexWire | undefined {
  if (d.index === '') return undefined;
  const out: IndexWire = { type: d.index };
  if (d.index === 'text') {
    if (d.language.trim()) out.language = d.language.trim();
    if (d.analyzer.trim()) out.analyzer = d.analyzer.trim();
  }
  if (d.index === 'vector') {
    if (d.algorithm) out.algorithm = d.algorithm;
    if (d.metric) out.metric = d.metric;
    for (const key of ['m', 'ef_construction', 'dimensions'] as const)
      if (d[key].trim()) out[key] = positiveInt(d[key].trim()) as number;
  }
  return out;
}

/**
 * The whole definition to send for a field (PUT /api/schemas/{c} `{fields: {name: def}}` replaces it): only the
 * options its type allows, empty boxes left out.
 */
export function definitionOf(d: FieldDraft): Record<string, unknown> {
  const allowed = OPTIONS_BY_TYPE[d.field_type];
  const def: Record<string, unknown> = { field_type: d.field_type, required: d.required, unique: d.unique };
  if (d.default !== '') def.default = valueFor(d.field_type, d.default);
  if (allowed.includes('min') && d.min.trim() !== '') def.min = boundFor(d.field_type, d.min.trim());
  if (allowed.includes('max') && d.max.trim() !== '') def.max = boundFor(d.field_type, d.max.trim());
  if (allowed.includes('regex') && d.regex !== '') def.regex = d.regex;
  if (allowed.includes('enums')) {
    const lines = d.enums.split('\n').filter((l) => l.trim() !== '');
    if (lines.length) def.enums = lines.map((l) => valueFor(d.field_type, l.trim()));
  }
  if (allowed.includes('format') && d.format) def.format = d.format;
  const index = indexOf(d);
  if (index) def.index = index;
  return def;
}

/** A stored definition without its unset members, for the JSON view. */
export function compactDefinition(def: FieldWire): Record<string, unknown> {
  const out: Record<string, unknown> = { field_type: def.field_type };
  if (def.required) out.required = true;
  if (def.unique) out.unique = true;
  for (const key of ['default', 'min', 'max', 'regex', 'format', 'index'] as const)
    if (def[key] !== null && def[key] !== undefined) out[key] = def[key];
  if (def.enums?.length) out.enums = def.enums;
  return out;
}

/** What a min/max box means for a type, for its label. */
export function boundLabel(type: FieldType, which: 'min' | 'max'): string {
  const word = which === 'min' ? 'Minimum' : 'Maximum';
  if (LENGTH_BOUNDED.has(type)) return `${word} length`;
  if (type === 'DateTime') return `${which === 'min' ? 'Earliest' : 'Latest'} (RFC 3339)`;
  return word;
}
