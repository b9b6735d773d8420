// @ts-check
/**
 * Reads the Dockerfile into stages of instructions, for the image check
 * (../image-check.mjs), which runs them without Docker. Only the subset the
 * Dockerfile uses is known: FROM, ARG, ENV, WORKDIR, COPY (--from, --chown),
 * RUN (shell form), USER, VOLUME, EXPOSE, STOPSIGNAL, HEALTHCHECK, CMD
 * (exec form) and LABEL. Anything else is an error naming the line, so a
 * new instruction is taught to the check before the image uses it. A RUN
 * right after a `# image-check: skip (why)` comment is kept but marked to be
 * skipped (system setup the check cannot or need not do). Also reads the
 * compose example's health check test, to compare with the image's.
 */
import { readFileSync } from 'node:fs';

/**
 * @typedef {{ op: string, line: number, text: string, skip?: string, from?: string, chown?: string,
 *   sources?: string[], dest?: string, env?: Record<string, string>, argv?: string[], options?: Record<string,
 *   string>, paths?: string[], value?: string }} Instruction
 * @typedef {{ name: string, image: string, instructions: Instruction[] }} Stage
 */

const KNOWN = new Set([
  'FROM',
  'ARG',
  'ENV',
  'WORKDIR',
  'COPY',
  'RUN',
  'USER',
  'VOLUME',
  'EXPOSE',
  'STOPSIGNAL',
  'HEALTHCHECK',
  'CMD',
  'LABEL',
]);
const SKIP = /^#\s*image-check:\s*skip\b\s*(.*)$/;

/** Logical lines: continuations (`\` at the end) joined, comments dropped, a skip marker kept on the next line. */
function logicalLines(text) {
  /** @type {{ line: number, text: string, skip?: string }[]} */
  const out = [];
  let current = '';
  let start = 0;
  /** @type {string | undefined} */
  let skip;
  text.split('\n').forEach((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed.startsWith('#')) {
      const marker = SKIP.exec(trimmed);
      if (marker && current === '') skip = marker[1] || 'marked skip';
      return;
    }
    if (current === '' && trimmed === '') return;
    if (current === '') start = i + 1;
    const continued = trimmed.endsWith('\\');
    current += (current ? ' ' : '') + (continued ? trimmed.slice(0, -1).trim() : trimmed);
    if (continued) return;
    out.push({ line: start, text: current, ...(skip !== undefined ? { skip } : {}) });
    current = '';
    skip = undefined;
  });
  if (current !== '') throw new Error(`Dockerfile line ${start}: a continuation runs past the end of the file`);
  return out;
}

/** `--name=value` flags at the start of `words`; returns them and the words after. */
function flags(words) {
  /** @type {Record<string, string>} */
  const found = {};
  let i = 0;
  for (; i < words.length && words[i].startsWith('--'); i++) {
    const [name, ...value] = words[i].slice(2).split('=');
    found[name] = value.join('=');
  }
  return { flags: found, rest: words.slice(i) };
}

/** `K=V K2="V 2"` (or the old `K V`) into a record. */
function envPairs(rest, where) {
  if (!rest.includes('=')) {
    const [key, ...value] = rest.split(/\s+/);
    return { [key]: value.join(' ') };
  }
  /** @type {Record<string, string>} */
  const env = {};
  const pair = /([A-Za-z_][A-Za-z0-9_]*)=("((?:[^"\\]|\\.)*)"|\S*)\s*/y;
  let at = 0;
  while (at < rest.length) {
    pair.lastIndex = at;
    const m = pair.exec(rest);
    if (!m) throw new Error(`${where}: cannot read ENV from '${rest.slice(at)}'`);
    env[m[1]] = m[3] !== undefined ? m[3].replace(/\\(.)/g, '$1') : m[2];
    at = pair.lastIndex;
  }
  return env;
}

/** A JSON array of strings (exec form), or an error naming the line. */
function execForm(text, where) {
  try {
    const argv = JSON.parse(text);
    if (Array.isArray(argv) && argv.every((a) => typeof a === 'string')) return argv;
  } catch {
    /* reported below */
  }
  throw new Error(`${where}: expected the exec form, a JSON array of strings: ${text}`);
}

/**
 * One instruction from a logical line.
 * @param {{ line: number, text: string, skip?: string }} logical
 */
function instruction({ line, text, skip }) {
  const where = `Dockerfile line ${line}`;
  const [word] = text.split(/\s/, 1);
  const op = word.toUpperCase();
  const rest = text.slice(word.length).trim();
  if (!KNOWN.has(op)) throw new Error(`${where}: the image check does not know ${op}; teach .ci/image/dockerfile.mjs`);
  if (skip !== undefined && op !== 'RUN') throw new Error(`${where}: '# image-check: skip' marks RUN lines only`);
  /** @type {Instruction} */
  const ins = { op, line, text };
  if (skip !== undefined) ins.skip = skip;
  switch (op) {
    case 'FROM': {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (!m) throw new Error(`${where}: cannot read FROM '${rest}'`);
      ins.value = m[1];
      ins.dest = m[2];
      break;
    }
    case 'ARG':
    case 'ENV':
      ins.env = envPairs(rest, where);
      break;
    case 'COPY': {
      if (rest.startsWith('[')) throw new Error(`${where}: the image check reads COPY in its plain form only`);
      const { flags: f, rest: words } = flags(rest.split(/\s+/));
      const unknown = Object.keys(f).filter((k) => k !== 'from' && k !== 'chown');
      if (unknown.length > 0) throw new Error(`${where}: the image check does not know COPY --${unknown[0]}`);
      if (words.length < 2) throw new Error(`${where}: COPY needs a source and a destination`);
      ins.from = f.from;
      ins.chown = f.chown;
      ins.sources = words.slice(0, -1);
      ins.dest = words[words.length - 1];
      break;
    }
    case 'RUN':
      if (rest.startsWith('[')) throw new Error(`${where}: the image check runs RUN in its shell form only`);
      ins.value = rest;
      break;
    case 'CMD':
      ins.argv = execForm(rest, where);
      break;
    case 'HEALTHCHECK': {
      const { flags: f, rest: words } = flags(rest.split(/\s+/));
      if (words[0]?.toUpperCase() !== 'CMD') throw new Error(`${where}: HEALTHCHECK needs CMD (NONE is not read)`);
      ins.options = f;
      ins.argv = execForm(rest.slice(rest.search(/\bCMD\b/i) + 3).trim(), where);
      break;
    }
    case 'VOLUME':
      ins.paths = rest.startsWith('[') ? execForm(rest, where) : rest.split(/\s+/);
      break;
    default:
      ins.value = rest;
  }
  return ins;
}

/**
 * The Dockerfile at `file` as its global ARGs and its stages in order.
 * @returns {{ args: Record<string, string>, stages: Stage[] }}
 */
export function readDockerfile(file) {
  /** @type {Record<string, string>} */
  const args = {};
  /** @type {Stage[]} */
  const stages = [];
  for (const logical of logicalLines(readFileSync(file, 'utf8'))) {
    const ins = instruction(logical);
    if (ins.op === 'FROM') {
      const image = substitute(/** @type {string} */ (ins.value), args);
      stages.push({ name: ins.dest ?? String(stages.length), image, instructions: [] });
    } else if (stages.length === 0) {
      if (ins.op !== 'ARG') throw new Error(`Dockerfile line ${ins.line}: only ARG may come before the first FROM`);
      Object.assign(args, ins.env);
    } else {
      stages[stages.length - 1].instructions.push(ins);
    }
  }
  if (stages.length === 0) throw new Error('the Dockerfile has no FROM');
  return { args, stages };
}

/** `$NAME` and `${NAME}` replaced from `vars` (unknown names: empty, as Docker does). */
export function substitute(text, vars) {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, a, b) => vars[a ?? b] ?? '');
}

/**
 * The compose file's service health check `test` (a YAML flow sequence of
 * quoted strings, as compose.yaml writes it), its volume mounts and its
 * stop_grace_period, read by pattern: enough to compare with the image.
 */
export function readCompose(file) {
  const text = readFileSync(file, 'utf8');
  const test = /\n\s+test:\s*(\[[\s\S]*?\])\s*\n/.exec(text);
  if (!test) throw new Error(`${file}: no healthcheck test as a flow sequence`);
  const strings = [...test[1].matchAll(/'((?:[^']|'')*)'|"((?:[^"\\]|\\.)*)"/g)].map((m) =>
    m[1] !== undefined ? m[1].replace(/''/g, "'") : JSON.parse(`"${m[2]}"`),
  );
  const volumes = [...text.matchAll(/^\s+-\s+['"]?([\w.-]+):(\/[^\s'"]*)['"]?\s*$/gm)].map((m) => m[2]);
  const grace = /stop_grace_period:\s*(\d+)s/.exec(text);
  return { test: strings, volumes, stopGraceSecs: grace ? Number(grace[1]) : undefined };
}
