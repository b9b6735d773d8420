/**
 * The one place chat providers reach the network: undici's `fetch` with the
 * caller's abort signal and a timeout, failures classified
 * (provider-error.ts), and server-sent events read line by line.
 *
 * It goes through the outbound machinery of lib/outbound: the
 * standard proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) are honoured,
 * and the connection's addresses are checked by a host policy that allows
 * exactly the provider's configured host (an admin chose it, so an Ollama on
 * 127.0.0.1 works) and nothing else. Redirects are not followed: a provider
 * answering 3xx is a request error, so no redirect can lead elsewhere.
 *
 * The timeout bounds the wait for the answer's head and then each gap
 * between body chunks, so a long stream that keeps sending lives on and a
 * stalled one fails as unreachable; a body that breaks off (connection
 * reset mid-stream) is an unusable answer, provider_unavailable. The caller's abort is not a failure:
 * it ends the request and surfaces as an AbortError for the caller to drop.
 */
import { fetch as undiciFetch } from 'undici';
import { dispatcherFor, hostPolicy, proxyFor, proxyFromEnv } from '../../outbound/index.js';
import { classifyProviderError, unusableAnswer } from './provider-error.js';

export interface ProviderRequest {
  readonly provider: string;
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: unknown;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** An answer whose status was 2xx, with its body still to read (through `text` or `events`). */
export interface ProviderAnswer {
  readonly status: number;
  text(): Promise<string>;
  /** The body as server-sent events: each `data:` payload (the `[DONE]` sentinel included). */
  events(): AsyncGenerator<string>;
  /** Abandons the body (and the upstream request). */
  cancel(): void;
}

/** True for the abort the caller asked for (its signal fired), which is not a provider failure. */
export function isCallerAbort(err: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && (err as Error)?.name === 'AbortError';
}

/** Sends the request; a non-2xx answer or a transport failure throws the classified ProviderFailed. */
export async function providerFetch(req: ProviderRequest): Promise<ProviderAnswer> {
  const own = new AbortController();
  const onAbort = () => own.abort(req.signal?.reason);
  req.signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      own.abort();
    }, req.timeoutMs);
  };
  const done = () => {
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', onAbort);
  };
  // Before the head: no answer (unreachable). After it: the answer broke off (unavailable), unless it stalled past the
  // timeout.
  const failure = (err: unknown, answered = false): unknown => {
    done();
    if (req.signal?.aborted) return abortError();
    if (timedOut) return classifyProviderError(req.provider, undefined, `no answer within ${req.timeoutMs} ms`);
    if (answered) return unusableAnswer(req.provider, `the answer broke off: ${transportDetail(err)}`);
    return classifyProviderError(req.provider, undefined, transportDetail(err));
  };
  if (req.signal?.aborted) throw abortError();
  arm();
  let res: Awaited<ReturnType<typeof undiciFetch>>;
  try {
    const url = new URL(req.url);
    res = await undiciFetch(url, {
      method: req.method ?? (req.body === undefined ? 'GET' : 'POST'),
      headers: req.body === undefined ? req.headers : { 'content-type': 'application/json', ...req.headers },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal: own.signal,
      redirect: 'manual',
      dispatcher: dispatcherFor(hostPolicy([url.hostname], false), proxyFor(url, proxyFromEnv(process.env))),
    });
  } catch (err) {
    throw failure(err);
  }
  if (res.status < 200 || res.status >= 300) {
    let text = '';
    try {
      arm();
      text = await res.text();
    } catch {
      /* the status alone classifies it */
    }
    done();
    throw classifyProviderError(req.provider, res.status, text, res.headers.get('retry-after'));
  }
  const chunks = async function* (): AsyncGenerator<string> {
    if (!res.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        arm();
        yield decoder.decode(chunk, { stream: true });
      }
      const rest = decoder.decode();
      if (rest) yield rest;
    } catch (err) {
      throw failure(err, true);
    } finally {
      done();
    }
  };
  return {
    status: res.status,
    async text() {
      let out = '';
      for await (const s of chunks()) out += s;
      return out;
    },
    async *events() {
      let buffer = '';
      let data: string[] = [];
      for await (const s of chunks()) {
        buffer += s;
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).replace(/\r$/, '');
          buffer = buffer.slice(nl + 1);
          if (line === '') {
            if (data.length) yield data.join('\n');
            data = [];
          } else if (line.startsWith('data:')) {
            data.push(line.slice(5).replace(/^ /, ''));
          }
          // `event:`, `id:`, `retry:` and comments carry nothing the payloads do not.
        }
      }
      if (data.length) yield data.join('\n');
    },
    cancel() {
      done();
      own.abort();
    },
  };
}

/** Parses a 2xx body as JSON, or fails as an unusable answer. */
export function parseJson(provider: string, text: string, status = 200): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw unusableAnswer(provider, 'the answer is not JSON', status);
  }
}

function abortError(): Error {
  const error = new Error('The request was cancelled');
  error.name = 'AbortError';
  return error;
}

/** Why the connection failed, from undici's error and its cause (ECONNREFUSED, ENOTFOUND, a TLS error). */
function transportDetail(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message ?? String(err);
}
