/**
 * Clients that send what fetch will not: `httpRequest` sets any header value
 * node's HTTP client accepts (empty, lists, repeats) and can bind a local
 * address (127.0.0.x) to act as another client; `socketRequest` writes raw
 * bytes on a TCP socket for requests no client library would produce.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server as NodeServer } from 'node:http';
import express from 'express';
import { createClientErrorHandler, createExpressHandler, type Dispatcher } from '../../lib/http/index.js';

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
}

export interface RawRequest {
  method: string;
  path: string;
  /** A name mapped to an array is sent as repeated header lines. */
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  localAddress?: string;
}

/** One request over node's HTTP client; the body is parsed as JSON when it is JSON. */
export function httpRequest(base: string, r: RawRequest): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(base + r.path, { method: r.method, localAddress: r.localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    for (const [name, value] of Object.entries(r.headers ?? {})) req.setHeader(name, value);
    if (r.body !== undefined) req.setHeader('Content-Length', Buffer.byteLength(r.body));
    req.end(r.body);
  });
}

/** Writes `bytes` on a fresh connection and returns everything read until the server closes it (or 5 s pass). */
export function socketRequest(base: string, bytes: string | Buffer): Promise<string> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    let out = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(out);
    }, 5000);
    socket.on('data', (d: Buffer) => {
      out += d.toString('latin1');
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    socket.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

/** Status line, headers and body of a raw HTTP/1.1 answer (a single, non-chunked one). */
export function parseRawResponse(raw: string): { status: number; headers: Record<string, string>; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = raw.slice(0, end < 0 ? raw.length : end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const colon = l.indexOf(':');
    if (colon > 0) headers[l.slice(0, colon).trim().toLowerCase()] = l.slice(colon + 1).trim();
  }
  return { status: Number(statusLine?.split(' ')[1] ?? 0), headers, body: end < 0 ? '' : raw.slice(end + 4) };
}

/** An express app serving the dispatcher through the adapter, with the clientError handler installed. */
export async function startExpress(dispatcher: Dispatcher): Promise<{ url: string; close: () => Promise<void> }> {
  const app = express();
  app.use(createExpressHandler(dispatcher));
  const server = await new Promise<NodeServer>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  server.on('clientError', createClientErrorHandler(dispatcher));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
