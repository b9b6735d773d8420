/**
 * The standard proxy variables, as servers behind company proxies set them:
 * `HTTPS_PROXY` for https URLs, `HTTP_PROXY` for http URLs (lower-case
 * spellings too, lower case winning as curl does), and `NO_PROXY`: a comma
 * or space separated list of `*` (no proxy at all), host names (a name also
 * covers its subdomains, a leading dot is optional), `name:port`, IP
 * addresses and CIDR ranges.
 */
import { inCidr, parseCidr, parseIp } from './ip-address.js';
import { normalizeHost } from './host-policy.js';

export interface ProxyConfig {
  readonly http?: string;
  readonly https?: string;
  readonly noProxy: readonly string[];
}

export const NO_PROXY_CONFIG: ProxyConfig = Object.freeze({ noProxy: [] });

function pick(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name.toLowerCase()] ?? env[name];
  return value && value.trim() !== '' ? value.trim() : undefined;
}

/** The proxy configuration of an environment (normally process.env). */
export function proxyFromEnv(env: NodeJS.ProcessEnv): ProxyConfig {
  const http = pick(env, 'HTTP_PROXY');
  const https = pick(env, 'HTTPS_PROXY');
  const noProxy = (pick(env, 'NO_PROXY') ?? '')
    .split(/[\s,]+/)
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '');
  return { ...(http ? { http: withScheme(http) } : {}), ...(https ? { https: withScheme(https) } : {}), noProxy };
}

/** `proxy.corp:3128` means `http://proxy.corp:3128`, as curl reads it. */
function withScheme(proxy: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

/** The proxy URL a request to `url` goes through, or undefined to connect directly. */
export function proxyFor(url: URL, config: ProxyConfig): string | undefined {
  const proxy = url.protocol === 'https:' ? config.https : config.http;
  if (!proxy) return undefined;
  return bypasses(url, config.noProxy) ? undefined : proxy;
}

function bypasses(url: URL, noProxy: readonly string[]): boolean {
  const host = normalizeHost(url.hostname);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const ip = parseIp(host);
  return noProxy.some((entry) => {
    if (entry === '*') return true;
    const net = parseCidr(entry);
    if (net) return ip !== undefined && inCidr(ip, net);
    const [, entryHost, entryPort] = /^(.*?)(?::(\d+))?$/.exec(entry)!;
    if (entryPort !== undefined && entryPort !== port) return false;
    const name = normalizeHost(entryHost!.replace(/^\*?\./, ''));
    return name !== '' && (host === name || host.endsWith(`.${name}`));
  });
}
