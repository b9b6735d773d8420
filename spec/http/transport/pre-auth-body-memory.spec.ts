/**
 * Large unauthenticated bodies against a real server process: 32 MiB
 * MessagePack bodies to the token exchange (whose strings of control
 * characters would have been rewritten at six bytes a byte) are refused with
 * 413 before they are sent, the server's peak resident memory barely moves,
 * and another client's point reads are served all along. The peak is the
 * child's VmHWM after writing 5 to its /proc/<pid>/clear_refs (Linux).
 */
import http from 'node:http';
import { accessSync, constants, readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { childToken, killChild, startChild, type ChildServer } from '../../helpers/child-server.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

const MIB = 1024 * 1024;

/** `{api_key: <control characters>}` as MessagePack, 32 MiB in all: within the limit of routes that need a token. */
function hugeTokenBody(): Buffer {
  const head = Buffer.from([0x81, 0xa7, ...Buffer.from('api_key'), 0xdb, 0, 0, 0, 0]);
  const length = 32 * MIB - head.length;
  head.writeUInt32BE(length, head.length - 4);
  return Buffer.concat([head, Buffer.alloc(length, 0x01)]);
}

interface Refusal {
  status: number;
  text: string;
  sentBeforeAnswer: number;
}

/** POSTs `body` to the token exchange in 256 KiB writes (chunked unless `declare`), until the answer comes. */
function sendUntilAnswered(url: string, body: Buffer, declare: boolean): Promise<Refusal> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request(
      `${url}/api/auth/token`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/msgpack', ...(declare ? { 'content-length': body.length } : {}) },
      },
      (res) => {
        answered = true;
        const sentBeforeAnswer = sent;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), sentBeforeAnswer }),
        );
        res.on('error', reject);
      },
    );
    // Once answered, the server closes the connection under the rest of the body: expected.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const writeMore = () => {
      while (!answered && sent < body.length) {
        const slice = body.subarray(sent, sent + 256 * 1024);
        sent += slice.length;
        if (!req.write(slice)) {
          req.once('drain', writeMore);
          return;
        }
      }
      if (!answered) req.end();
    };
    writeMore();
  });
}

function statusKiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(/(\d+)/.exec(line ?? '')?.[1]);
}

describe('32 MiB unauthenticated bodies to the token exchange of a real server', function () {
  this.timeout(120_000);
  let dir: string;
  let child: ChildServer;
  let token: string;
  let id: string;

  before(async function () {
    try {
      accessSync('/proc/self/clear_refs', constants.W_OK);
    } catch {
      this.skip();
    }
    dir = tempDir('eddydb-preauth-');
    child = await startChild(dir);
    token = await childToken(child.url);
    const made = await fetch(`${child.url}/api/insert/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'Rex' }),
    });
    id = ((await made.json()) as { id: string }).id;
  });

  after(async () => {
    if (child) await killChild(child);
    if (dir) removeDir(dir);
  });

  it('answers each with 413 before its body is sent, holds no memory for them, and serves point reads meanwhile', async () => {
    const pid = child.proc.pid!;
    const body = hugeTokenBody();
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    const before = statusKiB(pid, 'VmRSS');
    let done = false;
    const reads: number[] = [];
    const reader = (async () => {
      while (!done) {
        const r = await fetch(`${child.url}/api/find/pets/${id}`, { headers: { authorization: `Bearer ${token}` } });
        await r.arrayBuffer();
        reads.push(r.status);
      }
    })();
    // Four declaring their length, two streamed without one.
    const refusals = await Promise.all(
      [true, true, true, true, false, false].map((declare) => sendUntilAnswered(child.url, body, declare)),
    );
    done = true;
    await reader;
    const peakGrowthMiB = (statusKiB(pid, 'VmHWM') - before) / 1024;
    for (const r of refusals) {
      expect(r.status).to.equal(413);
      expect(JSON.parse(r.text).error).to.match(/^Request body exceeds 65536 bytes/);
      expect(r.sentBeforeAnswer).to.be.below(body.length);
    }
    expect(reads.length).to.be.above(0);
    expect(
      reads.every((s) => s === 200),
      String(reads),
    ).to.equal(true);
    // Six bodies of 32 MiB: kept whole and rewritten, they took about 2 GB; refused early, a few MiB at most.
    expect(peakGrowthMiB).to.be.below(100);
  });
});
