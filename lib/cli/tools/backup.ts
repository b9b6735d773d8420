/**
 * `eddydb backup --url URL --key KEY --out FILE`: saves an online backup of
 * a running server. It exchanges the key for a token, reads GET
 * /api/admin/backup into FILE.tmp (private) as the server sends it, with a
 * progress line (bytes, seq), checks the whole file as `eddydb verify FILE`
 * does, and only then renames it to FILE: a backup cut short or damaged on
 * the way never takes the place of a good one.
 */
import { open, rename, rm } from 'node:fs/promises';
import { Corruption } from '../../errors.js';
import { nodeFs, readBackup } from '../../engine/index.js';
import { CliFailure } from '../failure.js';
import { progress } from './progress.js';
import { describeContents, mebibytes } from './backup-file.js';

/** The header that names the seq a backup stands at (procedures/server/backup.ts). */
const SEQ_HEADER = 'x-eddydb-backup-seq';
/** How often the progress line is rewritten. */
const PROGRESS_MS = 250;

export interface BackupOptions {
  readonly url: string;
  readonly key: string;
  readonly out: string;
}

/** Takes the backup; resolves with the exit code. Refusals and failures throw CliFailure. */
export async function runBackup(opts: BackupOptions): Promise<number> {
  const base = opts.url.replace(/\/+$/, '');
  const token = await tokenFor(base, opts.key);
  const res = await reach(`${base}/api/admin/backup`, { headers: { Authorization: `Bearer ${token}` } });
  if (res.status !== 200 || !res.body) throw new CliFailure(`${base} refused the backup: ${await refusal(res)}`);
  const seq = Number(res.headers.get(SEQ_HEADER));
  const tmp = `${opts.out}.tmp`;
  const bytes = await save(res.body, tmp, seq);
  let described: string[];
  try {
    const contents = await readBackup(await nodeFs.readFile(tmp), opts.out);
    if (contents.manifest.seq !== seq)
      throw new Corruption(opts.out, 0, `it stands at seq ${contents.manifest.seq}, the server said ${seq}`);
    described = describeContents(contents);
  } catch (err) {
    await rm(tmp, { force: true });
    if (!(err instanceof Corruption)) throw err;
    throw new CliFailure(
      `the backup from ${base} is incomplete or damaged (${err.message}); nothing was written to ${opts.out}: ` +
        `take it again`,
    );
  }
  await rename(tmp, opts.out);
  progress(`backup of seq ${seq} written to ${opts.out} (${bytes} bytes)`, true);
  console.log(described.join('\n'));
  return 0;
}

/** Writes the body to `file` (created private, replaced if there) as it comes, with the progress line; its size. */
async function save(body: ReadableStream<Uint8Array>, file: string, seq: number): Promise<number> {
  const out = await open(file, 'w', 0o600);
  let bytes = 0;
  let shown = 0;
  try {
    for await (const chunk of body) {
      await out.write(chunk);
      bytes += chunk.length;
      if (Date.now() - shown >= PROGRESS_MS) {
        shown = Date.now();
        progress(`backup: ${mebibytes(bytes)} at seq ${seq}`);
      }
    }
    await out.datasync();
  } catch (err) {
    await out.close();
    await rm(file, { force: true });
    throw new CliFailure(`the backup stopped after ${bytes} bytes: ${(err as Error).message}; take it again`);
  }
  await out.close();
  return bytes;
}

async function tokenFor(base: string, key: string): Promise<string> {
  const res = await reach(`${base}/api/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ api_key: key }),
  });
  if (res.status !== 200) throw new CliFailure(`${base} refused the key: ${await refusal(res)}`);
  return ((await res.json()) as { token: string }).token;
}

/** fetch, with an unreachable server told in one line. */
async function reach(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const cause = (err as Error).cause as NodeJS.ErrnoException | undefined;
    const why = cause?.code ?? cause?.message ?? (err as Error).message;
    throw new CliFailure(`cannot reach ${new URL(url).origin} (${why}); check --url and that the server runs`);
  }
}

/** `403 the message` from an error answer. */
async function refusal(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  let message = text.slice(0, 300);
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    message = String(body.error ?? body.message ?? message);
  } catch {
    // Not JSON: the text as it came.
  }
  return `${res.status} ${message}`;
}
