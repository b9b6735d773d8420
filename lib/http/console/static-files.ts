/**
 * Serves the browser console: the static files Vite built into dist/console,
 * for every GET or HEAD outside /api. Hashed assets under /assets/ are cached
 * for a year; any other path without a file extension is a page of the
 * console's own router and gets index.html. Every answer carries a strict
 * Content-Security-Policy (scripts, styles and connections of this origin
 * only, plus its WebSocket) and nosniff. Without a built console, a short page
 * says how to build it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

const NOT_BUILT_PAGE =
  '<!doctype html><html lang="en"><meta charset="utf-8"><title>EddyDB console not built</title>' +
  '<h1>The EddyDB console is not built</h1>' +
  '<p>Run <code>npm run build</code> in the eddydb folder, then reload this page. The API is under <code>/api</code>.</p>' +
  '</html>\n';

/**
 * Whether the console answers this request: a GET or HEAD whose path is outside /api and /metrics, from a client
 * that takes a page or anything (a browser, curl); a client asking only for JSON or MessagePack gets the API's 404
 * there. /metrics stays the API's: Prometheus and curl accept anything and must get the metrics text.
 */
export function isConsoleRequest(method: string | undefined, url: string | undefined, accept?: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const p = url ?? '/';
  // The API's paths first: every API read passes here, and the pattern below costs more than these.
  if (p.startsWith('/api/') || p === '/api' || p.startsWith('/api?')) return false;
  if (p === '/metrics' || p.startsWith('/metrics?')) return false;
  // Only a plain path: anything else (`//host`, an absolute URL, characters a URL may not hold) is the API's to refuse.
  if (!PLAIN_PATH.test(p)) return false;
  return accept === undefined || accept.includes('text/html') || accept.includes('*/*');
}

/** An origin-form request target: one leading slash, then only characters a URL path and query may hold. */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~%!$&'()*+,;=:@/?]*$/;

/** The folder holding the built console: dist/console under the package root (found by walking up to package.json). */
export function defaultConsoleDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && isEddyPackage(pkg)) return path.join(dir, 'dist', 'console');
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve('dist', 'console');
    dir = parent;
  }
}

function isEddyPackage(file: string): boolean {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === 'eddydb';
  } catch {
    return false;
  }
}

/** The Content-Security-Policy for a page served to `host` (the Host header, when it is a plain host[:port]). */
export function contentSecurityPolicy(host: string | undefined): string {
  const socket = host && /^[A-Za-z0-9.\-:[\]]+$/.test(host) ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${socket}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The file under `root` that `url` names, or 'page' for a console route (index.html), or undefined when there is
 * no such file (a missing asset, a path that tries to leave `root`, a malformed escape).
 */
export function resolveConsolePath(root: string, url: string): string | 'page' | undefined {
  const q = url.search(/[?#]/);
  let rel: string;
  try {
    rel = decodeURIComponent(q < 0 ? url : url.slice(0, q));
  } catch {
    return undefined;
  }
  if (rel.includes('\0') || rel.includes('\\')) return undefined;
  const parts = rel.split('/').filter((s) => s !== '');
  if (parts.some((s) => s === '..' || s === '.')) return undefined;
  const last = parts.at(-1) ?? '';
  if (parts[0] !== 'assets' && !path.extname(last)) return 'page';
  const file = path.join(root, ...parts);
  if (!file.startsWith(root + path.sep)) return undefined;
  return existsSync(file) && path.extname(file) in CONTENT_TYPES ? file : undefined;
}

/** Answers a console request from the files under `root`. */
export function serveConsole(root: string, req: IncomingMessage, res: ServerResponse): void {
  const headers: Record<string, string> = {
    'Content-Security-Policy': contentSecurityPolicy(req.headers.host),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
  };
  const index = path.join(root, 'index.html');
  if (!existsSync(index))
    return send(req, res, 404, { ...headers, 'Content-Type': CONTENT_TYPES['.html']! }, NOT_BUILT_PAGE);
  const found = resolveConsolePath(root, req.url ?? '/');
  if (found === undefined) {
    return send(req, res, 404, { ...headers, 'Content-Type': CONTENT_TYPES['.txt']! }, 'Not found\n');
  }
  const file = found === 'page' ? index : found;
  const immutable = found !== 'page' && path.relative(root, file).startsWith('assets' + path.sep);
  headers['Content-Type'] = CONTENT_TYPES[path.extname(file)]!;
  headers['Cache-Control'] = immutable ? 'public, max-age=31536000, immutable' : 'no-cache';
  readFile(file).then(
    (body) => send(req, res, 200, headers, body),
    () => send(req, res, 404, { ...headers, 'Content-Type': CONTENT_TYPES['.txt']! }, 'Not found\n'),
  );
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Buffer | string,
): void {
  res.writeHead(status, { ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(req.method === 'HEAD' ? undefined : body);
}
