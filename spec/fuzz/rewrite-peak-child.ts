/**
 * Run by spec/http/wire/msgpack-json-fuzz.spec.ts in a process of its own: the
 * peak resident memory the native rewrite adds while it declines a 32 MiB
 * string of control characters (whose text would be six times the body).
 * Writing 5 to /proc/self/clear_refs resets the peak (VmHWM) to the current
 * resident size, so the peak after the call, less that, is what it held.
 * Prints {declined, bodyMiB, peakGrowthMiB} as JSON.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { msgpackAsJson } from '../../lib/http/wire/msgpack-json.js';

const MIB = 1024 * 1024;
const length = 32 * MIB;

function statusKiB(field: 'VmHWM' | 'VmRSS'): number {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(/(\d+)/.exec(line ?? '')?.[1]);
}

const body = Buffer.alloc(5 + length, 0x01);
body[0] = 0xdb;
body.writeUInt32BE(length, 1);
writeFileSync('/proc/self/clear_refs', '5');
const before = statusKiB('VmRSS');
const text = msgpackAsJson(body);
const peak = statusKiB('VmHWM');
process.stdout.write(
  JSON.stringify({ declined: text === undefined, bodyMiB: length / MIB, peakGrowthMiB: (peak - before) / 1024 }),
);
