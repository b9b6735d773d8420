/**
 * A strict reader of the Prometheus text exposition format 0.0.4, for specs
 * that scrape a server (prom-client writes the format but has no reader).
 * It throws, naming the line, on anything a Prometheus would refuse or
 * misread: a malformed line or label, a sample of an undeclared family or
 * of a family declared twice, a value that is not a number, a repeated
 * series, and histogram series whose buckets are not cumulative or whose
 * `+Inf` bucket differs from their `_count`.
 */

export interface Sample {
  /** The sample's own name (`x_bucket`, `x_sum`, `x_count` for a histogram `x`). */
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Family {
  readonly name: string;
  readonly type: string;
  /** Its HELP text ('' when it has none). */
  help: string;
  readonly samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
/** The sample names a family of each type may carry, as suffixes of its name. */
const SUFFIXES: Record<string, readonly string[]> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

/** The families of `text`, by name. */
export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const helps = new Map<string, string>();
  const seen = new Set<string>();
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const where = `line ${index + 1} (${JSON.stringify(line.slice(0, 120))})`;
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const parts = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
      if (!parts) return; // a comment
      const [, keyword, name, rest = ''] = parts;
      if (!NAME.test(name!)) throw new Error(`bad metric name at ${where}`);
      if (keyword === 'HELP') {
        if (helps.has(name!)) throw new Error(`second HELP for ${name} at ${where}`);
        helps.set(name!, unescapeHelp(rest));
        return;
      }
      if (!TYPES.has(rest)) throw new Error(`unknown type at ${where}`);
      if (families.has(name!)) throw new Error(`second TYPE for ${name} at ${where}`);
      families.set(name!, { name: name!, type: rest, help: '', samples: [] });
      return;
    }
    const sample = parseSample(line, where);
    const family = familyOf(families, sample.name);
    if (!family) throw new Error(`sample of an undeclared family at ${where}`);
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seen.has(key)) throw new Error(`repeated series at ${where}`);
    seen.add(key);
    family.samples.push(sample);
  });
  for (const family of families.values()) {
    family.help = helps.get(family.name) ?? '';
    if (family.type === 'histogram') checkHistogram(family);
  }
  return families;
}

function familyOf(families: Map<string, Family>, sampleName: string): Family | undefined {
  const exact = families.get(sampleName);
  if (exact && !SUFFIXES[exact.type]) return exact;
  for (const family of families.values()) {
    const suffixes = SUFFIXES[family.type];
    if (suffixes?.some((suffix) => family.name + suffix === sampleName)) return family;
  }
  return undefined;
}

function parseSample(line: string, where: string): Sample {
  const nameEnd = line.search(/[{ ]/);
  if (nameEnd <= 0) throw new Error(`malformed sample at ${where}`);
  const name = line.slice(0, nameEnd);
  if (!NAME.test(name)) throw new Error(`bad sample name at ${where}`);
  const labels: Record<string, string> = {};
  let at = nameEnd;
  if (line[at] === '{') {
    at += 1;
    while (line[at] !== '}') {
      const eq = line.indexOf('=', at);
      if (eq < 0) throw new Error(`malformed label at ${where}`);
      const labelName = line.slice(at, eq);
      if (!LABEL_NAME.test(labelName)) throw new Error(`bad label name ${labelName} at ${where}`);
      if (line[eq + 1] !== '"') throw new Error(`unquoted label value at ${where}`);
      let value = '';
      let i = eq + 2;
      for (; i < line.length && line[i] !== '"'; i++) {
        if (line[i] !== '\\') {
          value += line[i];
          continue;
        }
        const escaped = line[++i];
        if (escaped === 'n') value += '\n';
        else if (escaped === '\\' || escaped === '"') value += escaped;
        else throw new Error(`bad escape in a label value at ${where}`);
      }
      if (i >= line.length) throw new Error(`unterminated label value at ${where}`);
      if (labelName in labels) throw new Error(`repeated label ${labelName} at ${where}`);
      labels[labelName] = value;
      at = i + 1;
      if (line[at] === ',') at += 1;
      else if (line[at] !== '}') throw new Error(`malformed labels at ${where}`);
    }
    at += 1;
  }
  const fields = line.slice(at).trim().split(/\s+/);
  if (line[at] !== ' ' || fields.length < 1 || fields.length > 2) throw new Error(`malformed value at ${where}`);
  return { name, labels, value: parseValue(fields[0]!, where) };
}

/** A float as Prometheus reads it (Go's ParseFloat: NaN and Inf in any case, so prom-client's `Nan` too). */
function parseValue(text: string, where: string): number {
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(text);
  if (special) return special[2]!.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
  const value = Number(text);
  if (text === '' || Number.isNaN(value)) throw new Error(`value is not a number at ${where}`);
  return value;
}

function unescapeHelp(text: string): string {
  return text.replace(/\\(n|\\)/g, (_m, c: string) => (c === 'n' ? '\n' : '\\'));
}

/** Buckets cumulative in `le`, ending at `+Inf` equal to `_count`, for each series of the histogram. */
function checkHistogram(family: Family): void {
  const bySeries = new Map<string, { buckets: Array<[number, number]>; count?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const series = bySeries.get(key) ?? { buckets: [] };
    bySeries.set(key, series);
    if (sample.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      series.buckets.push([parseValue(le, `${family.name} le`), sample.value]);
    } else if (sample.name.endsWith('_count')) series.count = sample.value;
  }
  for (const [key, series] of bySeries) {
    const sorted = [...series.buckets].sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < sorted.length; i++)
      if (sorted[i]![1] < sorted[i - 1]![1]) throw new Error(`${family.name}${key}: buckets not cumulative`);
    const inf = sorted[sorted.length - 1];
    if (!inf || inf[0] !== Infinity) throw new Error(`${family.name}${key}: no +Inf bucket`);
    if (inf[1] !== series.count)
      throw new Error(`${family.name}${key}: +Inf bucket ${inf[1]} != count ${series.count}`);
  }
}

/** The value of the first sample named `name` whose labels include `labels`, or undefined when there is none. */
export function valueOf(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const family of families.values())
    for (const sample of family.samples)
      if (sample.name === name && Object.entries(labels).every(([k, v]) => sample.labels[k] === v)) return sample.value;
  return undefined;
}
