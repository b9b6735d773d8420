/**
 * Server-sent events from a POST: EventSource can only GET and cannot send the token, so the answer is read with
 * fetch and a ReadableStream reader, and its frames (`event:` and `data:` lines up to a blank line; `:` comments
 * are heartbeats) are handed over as they arrive.
 */
import { ApiError, getToken, setToken } from './api.js';

export interface SseFrame {
  /** The `event:` line's name, `message` when the frame has none. */
  event: string;
  /** The `data:` lines joined by newlines, parsed as JSON (the raw text when it is not JSON). */
  data: unknown;
}

/** Splits a buffer into complete frames and what is left over, waiting for more. */
export function parseFrames(buffer: string): { frames: SseFrame[]; rest: string } {
  const frames: SseFrame[] = [];
  const normalized = buffer.replace(/\r\n?/g, '\n');
  const blocks = normalized.split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length === 0) continue;
    const text = data.join('\n');
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    frames.push({ event, data: parsed });
  }
  return { frames, rest };
}

async function failure(res: Response): Promise<ApiError> {
  let body: { error?: unknown; message?: unknown; request_id?: unknown; details?: unknown } = {};
  try {
    body = (await res.json()) as typeof body;
  } catch {
    // no JSON body
  }
  const message =
    typeof body.error === 'string' ? body.error : typeof body.message === 'string' ? body.message : res.statusText;
  const requestId =
    typeof body.request_id === 'string' ? body.request_id : (res.headers.get('X-Request-Id') ?? undefined);
  if (res.status === 401) setToken(null);
  return new ApiError(message, res.status, requestId, body.details);
}

export interface StreamOptions {
  signal?: AbortSignal;
  /** Called once the stream is open, with the request id the server gave it (for errors that arrive in frames). */
  onOpen?: (requestId: string | undefined) => void;
}

/**
 * POSTs `body` as JSON with the tab's token and calls `onFrames` with each batch of frames as it is read. Resolves
 * when the server ends the stream; a refusal before the stream opens is thrown as an ApiError, and an abort through
 * `signal` rejects with the fetch's AbortError.
 */
export async function postStream(
  path: string,
  body: unknown,
  onFrames: (frames: SseFrame[]) => void,
  { signal, onOpen }: StreamOptions = {},
): Promise<void> {
  const headers: Record<string, string> = { Accept: 'text/event-stream', 'Content-Type': 'application/json' };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body), signal });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(`The server did not answer (${(err as Error).message})`, 0, undefined);
  }
  if (!res.ok) throw await failure(res);
  if (!res.body) throw new ApiError('The server sent no stream', res.status, undefined);
  onOpen?.(res.headers.get('X-Request-Id') ?? undefined);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  // Cancelling the reader ends a read that waits for data at once; the fetch's own abort may wait for the next chunk.
  const stop = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', stop);
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done || signal?.aborted) break;
      buffer += value;
      const { frames, rest } = parseFrames(buffer);
      buffer = rest;
      if (frames.length) onFrames(frames);
    }
  } finally {
    signal?.removeEventListener('abort', stop);
  }
  if (signal?.aborted) throw new DOMException('The stream was stopped', 'AbortError');
  const { frames } = parseFrames(buffer + '\n\n');
  if (frames.length) onFrames(frames);
}
