/**
 * Seeded differential fuzzing of the native MessagePack rewrite against
 * msgpackr, with the normal build (spec/fuzz/codec-fuzz.ts runs the same
 * bodies many more times under the sanitizers): random bodies of every type
 * and header width, damaged ones, lengths near 2^32, and bodies whose text
 * would pass twice their size, which are left to msgpackr whole.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { decodeBody } from '../../../lib/http/wire/codec.js';
import { msgpackAsJson, msgpackRewriteAvailable } from '../../../lib/http/wire/msgpack-json.js';
import { mulberry32 } from '../../helpers/seeded-random.js';
import { checkBody, edgeBodies, mutateBody, nextBody, randomBody } from '../../fuzz/msgpack-cases.js';

const MP = 'application/msgpack';
const PEAK_CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'fuzz', 'rewrite-peak-child.ts');

describe('http/codec: the MessagePack rewrite, fuzzed against msgpackr', function () {
  before(function () {
    if (!msgpackRewriteAvailable) {
      console.log('    (build/Release/eddydb_codec.node was not built: nothing to compare)');
      this.skip();
    }
  });

  it('agrees with msgpackr on 3,000 seeded random and damaged bodies', () => {
    const rnd = mulberry32(2026);
    const counts = { rewritten: 0, declined: 0 };
    for (let i = 0; i < 3000; i++) counts[checkBody(nextBody(rnd), msgpackAsJson)]++;
    expect(counts.rewritten).to.be.above(500);
    expect(counts.declined).to.be.above(500);
  });

  it('agrees on every single-bit flip of a small body', () => {
    const body = randomBody(mulberry32(7));
    for (let bit = 0; bit < body.length * 8; bit++) {
      const flipped = Buffer.from(body);
      flipped[bit >> 3] = flipped[bit >> 3]! ^ (1 << (bit & 7));
      checkBody(flipped, msgpackAsJson);
    }
    const rnd = mulberry32(8);
    for (let i = 0; i < 500; i++) checkBody(mutateBody(rnd, body), msgpackAsJson);
  });

  it('declines lengths and counts the bytes left cannot hold, nesting past the limit, and text over twice the body', () => {
    for (const edge of edgeBodies()) expect(checkBody(edge.body, msgpackAsJson), edge.name).to.equal(edge.outcome);
  });

  it('leaves a body of control characters to msgpackr, which decodes the same string', () => {
    const text = '\u0001\u0002\n'.repeat(50_000);
    const body = Buffer.concat([Buffer.from([0x81, 0xa1, 0x73, 0xdb, 0, 0, 0, 0]), Buffer.from(text)]);
    body.writeUInt32BE(text.length, 4);
    expect(msgpackAsJson(body)).to.equal(undefined);
    expect(decodeBody(body, MP)).to.deep.equal({ s: text });
  });

  it('holds no more than about twice a 32 MiB body while declining it (peak memory of a child process)', function () {
    try {
      accessSync('/proc/self/clear_refs', constants.W_OK);
    } catch {
      this.skip();
    }
    this.timeout(60_000);
    const out = execFileSync(process.execPath, ['--import', 'tsx', PEAK_CHILD], { encoding: 'utf8' });
    const peak = JSON.parse(out) as { declined: boolean; bodyMiB: number; peakGrowthMiB: number };
    expect(peak.declined).to.equal(true);
    // Twice the body is 64 MiB; without the bound the rewrite held six times it (192 MiB) and then the text.
    expect(peak.peakGrowthMiB).to.be.below(2 * peak.bodyMiB + 16);
  });
});
