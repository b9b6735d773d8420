/**
 * Closes HNSW worker threads while they calibrate, in a process of its own
 * (a close that terminates a worker inside a native call aborts the whole
 * process): builds a graph big enough to calibrate, closes the thread at
 * staggered moments of the calibration, and prints `closed N` when every
 * close returned.
 */
import { HnswBatch, HnswThread } from '../../lib/vector/index.js';
import { randomVectors } from './seeded-random.js';

const DIMS = 64;
const ROUNDS = Number(process.argv[2] ?? 8);
const data = randomVectors(4000, DIMS, 7);

for (let round = 0; round < ROUNDS; round++) {
  const thread = new HnswThread();
  const graph = thread.create({ dimensions: DIMS, metric: 'cosine', initialCapacity: data.length });
  for (let i = 0; i < data.length; i += 500) {
    const batch = new HnswBatch(DIMS);
    data.slice(i, i + 500).forEach((v, k) => batch.add(`r${i + k}`, v));
    await graph.apply(batch);
  }
  // Calibration starts once the batches have paused for 200 ms and runs for a while: close somewhere inside it.
  await new Promise((resolve) => setTimeout(resolve, 210 + round * 15));
  await thread.close();
}
console.log(`closed ${ROUNDS}`);
