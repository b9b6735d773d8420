/**
 * Where things are in a JSON text: the offsets of every value by its path (`functions[1].then_functions[0]`, the
 * path syntax the server's definition errors use), and the path a server message starts with.
 */

export interface Span {
  start: number;
  end: number;
}

const IDENTIFIER = /^[A-Za-z_]\w*$/;

/** The path of a member below `parent`: `parent.key`, or `parent["odd key"]` when the key is not an identifier. */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (!IDENTIFIER.test(key)) return `${parent}[${JSON.stringify(key)}]`;
  return parent ? `${parent}.${key}` : key;
}

/** Every value's span in a JSON text by path (the root is ''); undefined when the text is not JSON. */
export function valueSpans(text: string): Map<string, Span> | undefined {
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  const spans = new Map<string, Span>();
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const readString = (): string => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    skipSpace();
    const start = i;
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      skipSpace();
      let index = 0;
      while (text[i] !== close) {
        if (c === '{') {
          const key = readString();
          skipSpace();
          i++; // the colon
          value(childPath(path, key));
        } else {
          value(childPath(path, index++));
        }
        skipSpace();
        if (text[i] === ',') i++;
        skipSpace();
      }
      i++;
    } else if (c === '"') {
      readString();
    } else {
      while (i < text.length && /[-+.\w]/.test(text[i]!)) i++;
    }
    spans.set(path, { start, end: i });
  };
  value('');
  return spans;
}

/** The path one level up (`a.b[2]` → `a.b`, `a` → ''), undefined at the root. */
export function parentPath(path: string): string | undefined {
  if (path === '') return undefined;
  const last = /(\.[A-Za-z_]\w*|\[(?:\d+|"(?:[^"\\]|\\.)*")\])$/.exec(path);
  return last ? path.slice(0, last.index) : '';
}

/**
 * The span of `path` in the text, or of the nearest enclosing value that exists there (a member the server says
 * is missing points at its step); `found` is the path actually located.
 */
export function locate(text: string, path: string): { span: Span; found: string } | undefined {
  const spans = valueSpans(text);
  if (!spans) return undefined;
  for (let p: string | undefined = path; p !== undefined; p = parentPath(p)) {
    const span = spans.get(p);
    if (span && p !== '') return { span, found: p };
  }
  return undefined;
}

/** The path of the innermost step a path is in: its longest prefix that ends with a list index. */
export function stepPathOf(path: string): string | undefined {
  for (let p: string | undefined = path; p; p = parentPath(p)) if (p.endsWith(']') && !p.endsWith('"]')) return p;
  return undefined;
}

/** The 1-based line an offset is on. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

const PATH_PREFIX = /^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[\d+\])*): ([\s\S]+)$/;

/**
 * Splits a server message of the form "<path>: <message>" (how stored-function definition errors name where they
 * are). Only paths starting with one of `roots` count, so an ordinary "Error: ..." is not read as a path.
 */
export function splitPathMessage(
  message: string,
  roots: readonly string[],
): { path: string; message: string } | undefined {
  const m = PATH_PREFIX.exec(message);
  if (!m) return undefined;
  const root = /^[A-Za-z_]\w*/.exec(m[1]!)![0];
  return roots.includes(root) ? { path: m[1]!, message: m[2]! } : undefined;
}
