/**
 * JSON handled as text, never through numbers: the server keeps 64-bit integers exact, which JSON.parse would
 * round, so records are shown, compared, split and sent back as their own text. Each function expects valid JSON
 * (check with JSON.parse first); the text between tokens is the only thing they change.
 */

/** The tokens of a JSON text: strings and literals whole, punctuation one character each. */
function tokens(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out.push(text.slice(i, j + 1));
      i = j + 1;
    } else if ('{}[]:,'.includes(c)) {
      out.push(c);
      i++;
    } else {
      let j = i;
      while (j < text.length && !' \n\r\t{}[]:,"'.includes(text[j]!)) j++;
      out.push(text.slice(i, j));
      i = j;
    }
  }
  return out;
}

/** The text laid out with two-space indentation, numbers written exactly as they came. */
export function prettyJson(text: string): string {
  const toks = tokens(text);
  let out = '';
  let depth = 0;
  const newline = () => '\n' + '  '.repeat(depth);
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k]!;
    const next = toks[k + 1];
    if (t === '{' || t === '[') {
      const empty = next === (t === '{' ? '}' : ']');
      out += t;
      if (empty) {
        out += next;
        k++;
      } else {
        depth++;
        out += newline();
      }
    } else if (t === '}' || t === ']') {
      depth--;
      out += newline() + t;
    } else if (t === ',') out += ',' + newline();
    else if (t === ':') out += ': ';
    else out += t;
  }
  return out;
}

/** The text on one line without spaces between tokens. */
export function minifyJson(text: string): string {
  return tokens(text).join('');
}

/** Splits the top level of a container into its parts: [key token or undefined, value text] per member. */
function topLevel(text: string, open: '{' | '['): [string | undefined, string][] {
  const toks = tokens(text);
  if (toks[0] !== open) throw new Error(open === '{' ? 'not a JSON object' : 'not a JSON array');
  const parts: [string | undefined, string][] = [];
  let depth = 0;
  let key: string | undefined;
  let value: string[] = [];
  for (let k = 1; k < toks.length - 1; k++) {
    const t = toks[k]!;
    if (depth === 0 && t === ',') {
      parts.push([key, value.join('')]);
      key = undefined;
      value = [];
      continue;
    }
    if (open === '{' && depth === 0 && key === undefined && toks[k + 1] === ':') {
      key = t;
      k++;
      continue;
    }
    if (t === '{' || t === '[') depth++;
    if (t === '}' || t === ']') depth--;
    value.push(t);
  }
  if (value.length) parts.push([key, value.join('')]);
  return parts;
}

/** The members of a JSON object text: name to its value's minified text, in order. */
export function objectMembers(text: string): Map<string, string> {
  const members = new Map<string, string>();
  for (const [key, value] of topLevel(text, '{')) members.set(JSON.parse(key!) as string, value);
  return members;
}

/** The elements of a JSON array text, each as minified text. */
export function arrayElements(text: string): string[] {
  return topLevel(text, '[').map(([, value]) => value);
}

/** An object text from member names and value texts. */
export function objectText(members: Iterable<[string, string]>): string {
  return '{' + [...members].map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',') + '}';
}

type Reviver = (key: string, value: unknown, context?: { source?: string }) => unknown;

/** JSON.parse that keeps integers beyond 2^53 exact, as BigInt (from the literal's source text). */
export function parseExact<T>(text: string): T {
  const reviver: Reviver = (_key, value, context) =>
    typeof value === 'number' && !Number.isSafeInteger(value) && context?.source && /^-?\d+$/.test(context.source)
      ? BigInt(context.source)
      : value;
  return JSON.parse(text, reviver as Parameters<typeof JSON.parse>[1]) as T;
}

/** JSON.stringify that writes BigInt values as their digits (the inverse of parseExact). */
export function stringifyExact(value: unknown, indent?: number): string {
  const marks: string[] = [];
  const text = JSON.stringify(
    value,
    (_key, v: unknown) => (typeof v === 'bigint' ? `\u0000big${marks.push(v.toString()) - 1}\u0000` : v),
    indent,
  );
  return text.replace(/"\\u0000big(\d+)\\u0000"/g, (_m, i: string) => marks[Number(i)]!);
}
