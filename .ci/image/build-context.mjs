// @ts-check
/**
 * The build context as Docker sends it (the repository less what
 * .dockerignore leaves out) and COPY into a stage's directory, for the image
 * check (../image-check.mjs). Patterns follow Docker's rules: `*` and `?`
 * within one path segment, `**` across segments, `!` takes back an earlier
 * exclusion, the last matching pattern decides, and a path is matched with
 * each of its parent directories too (excluding a directory excludes what
 * is in it).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** A .dockerignore pattern as a regular expression over a slash-separated relative path. */
function patternRegExp(pattern) {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      // `**/` matches no directory or any number of them; a trailing `**` matches everything below.
      re += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * Reads `dir`/.dockerignore; returns whether a path relative to `dir` is left out of the context.
 * @returns {(relative: string) => boolean}
 */
export function dockerIgnore(dir) {
  const file = path.join(dir, '.dockerignore');
  const rules = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '' && !l.startsWith('#'))
        .map((l) => {
          const negated = l.startsWith('!');
          const body = path.posix.normalize((negated ? l.slice(1) : l).trim()).replace(/^\/+|\/+$/g, '');
          return { negated, re: patternRegExp(body) };
        })
    : [];
  return (relative) => {
    const parts = relative.split(path.sep);
    const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let ignored = false;
    for (const rule of rules) if (prefixes.some((p) => rule.re.test(p))) ignored = !rule.negated;
    return ignored;
  };
}

/**
 * The files a COPY source names under `root` (a `*` or `?` in its last segment is a pattern), each as
 * [absolute path, name]; throws when it names nothing, as Docker does.
 */
export function sourcesOf(root, source, where) {
  const clean = path.posix.normalize(source).replace(/^\/+/, '');
  const dir = path.join(root, path.posix.dirname(clean));
  const base = path.posix.basename(clean);
  if (/[*?]/.test(base)) {
    const re = patternRegExp(base);
    const names = existsSync(dir) ? readdirSync(dir).filter((n) => re.test(n)) : [];
    if (names.length === 0) throw new Error(`${where}: COPY source '${source}' matches no file`);
    return names.sort().map((n) => [path.join(dir, n), n]);
  }
  const full = path.join(root, clean);
  if (!existsSync(full)) throw new Error(`${where}: COPY source '${source}' does not exist`);
  return [[full, base]];
}

/**
 * Copies like COPY: a directory's contents into `dest`, a file into `dest` (a directory when it ends in
 * `/` or there are several sources). `keep(path)` filters what is copied (the context's .dockerignore).
 * Returns the paths it wrote at the top level (for ownership).
 */
export function copyInto(sources, dest, destIsDir, keep = (/** @type {string} */ _p) => true) {
  const written = [];
  if (destIsDir) mkdirSync(dest, { recursive: true });
  for (const [from, name] of sources) {
    if (!keep(from)) continue;
    const isDir = statSync(from).isDirectory();
    const target = isDir ? dest : destIsDir ? path.join(dest, name) : dest;
    cpSync(from, target, {
      recursive: true,
      force: true,
      preserveTimestamps: true,
      filter: (p) => keep(p),
    });
    written.push(target);
  }
  return written;
}
