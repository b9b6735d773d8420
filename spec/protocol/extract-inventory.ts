/**
 * Reads the route inventory out of protocol.md and writes spec/protocol/inventory.ts.
 *
 *   npx tsx spec/protocol/extract-inventory.ts [path/to/protocol.md]
 *
 * The routes are the rows of every table of section 2 with a Method and a
 * Path column, plus the subscription route of 2.15 (given in prose) and the
 * WebSocket endpoint; the message types are the rows of 3.4. Section 2.17
 * only counts and names these routes, so it serves as the parse's check: the
 * TS-client routes must add up to its total, and every route it names as used
 * outside the TS client must have been found. The fixture is checked in
 * because CI clones the repository without the docs; inventory.spec.ts
 * compares it with protocol.md when the docs are on the machine.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { findProtocolMd, readProtocolMd } from './protocol-md.js';

/** One HTTP route of the inventory, in the protocol's own notation (`{c}` for a parameter). */
export interface InventoryRoute {
  readonly method: string;
  readonly path: string;
  /** The protocol.md section whose table (or prose, for 2.15 and 3.1) gives it. */
  readonly section: string;
}

/** One client-to-server WebSocket message type (protocol.md 3.4). */
export interface InventoryMessage {
  readonly type: string;
  readonly section: string;
}

export interface Inventory {
  readonly routes: readonly InventoryRoute[];
  readonly messages: readonly InventoryMessage[];
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Parses protocol.md; throws when the result disagrees with the counts of 2.17. */
export function extractInventory(markdown: string): Inventory {
  const sections = splitSections(markdown);
  const routes: InventoryRoute[] = [];
  for (const [section, text] of sections) {
    if (!/^2\.(\d+)$/.test(section) || section === '2.17') continue;
    for (const row of tableRows(text, ['Method', 'Path'])) {
      for (const method of methodsOf(row.Method!)) routes.push({ method, path: pathOf(row.Path!), section });
    }
    for (const m of text.matchAll(/^- `(GET|POST|PUT|PATCH|DELETE) (\/api\/[^`\s]+)`/gm)) {
      routes.push({ method: m[1]!, path: pathOf(m[2]!), section });
    }
  }
  const wsEndpoint = /WebSocket endpoint: `(\/api\/[^`]+)`/.exec(sections.get('1.1') ?? '');
  if (!wsEndpoint) throw new Error('protocol.md 1.1 no longer names the WebSocket endpoint');
  routes.push({ method: 'GET', path: wsEndpoint[1]!, section: '1.1' });

  const messages = tableRows(sections.get('3.4') ?? '', ['type']).map((row) => ({
    type: unquote(row.type!),
    section: '3.4',
  }));
  checkAgainstSummary(routes, sections.get('2.17') ?? '');
  return { routes: dedupe(routes), messages };
}

/** Section number (`2.13`) to its text, for every `## n.` and `### n.m` heading. */
function splitSections(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  let current: string | undefined;
  for (const line of markdown.split('\n')) {
    const heading = /^#{2,3} (\d+(?:\.\d+)?)\.? /.exec(line);
    if (heading) current = heading[1]!;
    if (current !== undefined) out.set(current, (out.get(current) ?? '') + line + '\n');
  }
  return out;
}

/** The rows of every table in `text` whose header has all of `columns`, as header-to-cell maps. */
function tableRows(text: string, columns: string[]): Array<Record<string, string>> {
  const rows: Array<Record<string, string>> = [];
  let header: string[] | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) {
      header = undefined;
      continue;
    }
    const cells = line
      .slice(1, line.endsWith('|') ? -1 : undefined)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    if (!header) {
      header = cells;
      continue;
    }
    if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
    if (!columns.every((c) => header!.includes(c))) continue;
    rows.push(Object.fromEntries(header.map((h, i) => [h, cells[i] ?? ''])));
  }
  return rows;
}

/** `GET`, `GET/PUT/DELETE`, `ANY (GET, POST, PUT, PATCH, DELETE)`. */
function methodsOf(cell: string): string[] {
  const methods = cell.match(/[A-Z]+/g)?.filter((m) => METHODS.includes(m)) ?? [];
  if (methods.length === 0) throw new Error(`no HTTP method in table cell '${cell}'`);
  return methods;
}

/** A backticked path cell without its query string: `/api/chat/goals/search?q=<text>` is `/api/chat/goals/search`. */
function pathOf(cell: string): string {
  const p = unquote(cell).split('?')[0]!;
  if (!p.startsWith('/api')) throw new Error(`not an /api path: '${cell}'`);
  return p;
}

function unquote(cell: string): string {
  return cell.replace(/^`|`$/g, '').trim();
}

function dedupe(routes: InventoryRoute[]): InventoryRoute[] {
  const seen = new Set<string>();
  return routes.filter((r) => {
    const key = `${r.method} ${r.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * 2.17 counts the TS client's routes per area and names the routes used
 * outside it ("`GET /api/schemas/{c}` (RS, KT)", "`/api/route/{path}`" for
 * every method). What the tables give beyond those named must match the count.
 */
function checkAgainstSummary(routes: InventoryRoute[], summary: string): void {
  const total = /TS client routes \((\d+) HTTP\/SSE routes/.exec(summary);
  const areaCounts = tableRows(summary, ['Area', 'Count']).map((row) => Number(row.Count));
  const outside = summary.slice(summary.indexOf('Additional routes'));
  if (!total || areaCounts.length === 0 || outside.length === summary.length)
    throw new Error('protocol.md 2.17 changed its shape; update extract-inventory.ts');
  if (areaCounts.reduce((a, b) => a + b, 0) !== Number(total[1]))
    throw new Error('protocol.md 2.17: the area counts do not add up to the total');

  const named = [...outside.matchAll(/`(?:([A-Z|]+) )?(\/api\/[^`]+)`/g)].map((m) => ({
    methods: m[1]?.split('|'),
    path: m[2]!,
  }));
  // Without a method, "`/api/route/{path}`" stands for every route under its literal prefix.
  const covers = (n: (typeof named)[number], r: InventoryRoute) =>
    n.methods
      ? n.methods.includes(r.method) && n.path === r.path
      : r.path.startsWith(n.path.includes('{') ? n.path.slice(0, n.path.indexOf('{')) : n.path);
  for (const n of named) {
    if (!routes.some((r) => covers(n, r))) {
      throw new Error(
        `protocol.md 2.17 names ${n.methods?.join('|') ?? 'ANY'} ${n.path}, which no table of section 2 gives`,
      );
    }
  }
  const isNamed = (r: InventoryRoute) => named.some((n) => covers(n, r));
  const tsClient = dedupe(routes).filter((r) => r.section.startsWith('2.') && !isNamed(r));
  if (tsClient.length !== Number(total[1])) {
    throw new Error(
      `protocol.md 2.17 counts ${total[1]} TS-client routes, the tables of section 2 give ${tsClient.length}`,
    );
  }
}

/** The fixture's source text. */
export function renderInventory(inventory: Inventory, source: string): string {
  const route = (r: InventoryRoute) => `  { method: '${r.method}', path: '${r.path}', section: '${r.section}' },`;
  const message = (m: InventoryMessage) => `  { type: '${m.type}', section: '${m.section}' },`;
  return [
    '/**',
    ` * GENERATED by spec/protocol/extract-inventory.ts from ${source}`,
    ' * (section 2 tables, 2.15, 1.1 and 3.4; checked against the counts of 2.17).',
    ' * Do not edit: change protocol.md and run `npx tsx spec/protocol/extract-inventory.ts`.',
    ' */',
    "import type { InventoryMessage, InventoryRoute } from './extract-inventory.js';",
    '',
    'export const ROUTE_INVENTORY: readonly InventoryRoute[] = [',
    ...inventory.routes.map(route),
    '];',
    '',
    'export const MESSAGE_INVENTORY: readonly InventoryMessage[] = [',
    ...inventory.messages.map(message),
    '];',
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const source = process.argv[2] ?? findProtocolMd();
  if (!source) throw new Error('protocol.md not found; pass its path');
  const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'inventory.ts');
  writeFileSync(
    out,
    renderInventory(
      extractInventory(readProtocolMd(source)),
      'protocol.md (shared/docs, beside the repository, not in it)',
    ),
  );
  console.log(`wrote ${path.relative(process.cwd(), out)} from ${source}`);
}
