// Follows one collection of an EddyDB cluster through its change feed (the
// JetStream stream EDDYDB_<cluster>), printing each change as a JSON line,
// and resumes after a restart from the last sequence it handled, which it
// keeps in a file. docs/cluster.md explains the feed.
//
//   NATS_URL=nats://127.0.0.1:4222 EDDYDB_CLUSTER=prod COLLECTION=orders \
//   STATE_FILE=./orders.seq node examples/cluster/follow-collection.mjs
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';

const { NATS_URL = 'nats://127.0.0.1:4222', EDDYDB_CLUSTER, COLLECTION, STATE_FILE = './feed.seq' } = process.env;
if (!EDDYDB_CLUSTER || !COLLECTION) throw new Error('set EDDYDB_CLUSTER and COLLECTION');

/** The last sequence handled (0 the first time). */
function lastSeq() {
  try {
    return Number(readFileSync(STATE_FILE, 'utf8')) || 0;
  } catch {
    return 0;
  }
}

/** Written after the change is handled: a crash in between handles it again (at least once). */
function saveSeq(seq) {
  writeFileSync(`${STATE_FILE}.tmp`, String(seq));
  renameSync(`${STATE_FILE}.tmp`, STATE_FILE);
}

const nc = await connect({ servers: NATS_URL.split(',') });
const js = jetstream(nc);
// An ordered consumer from the next sequence; no state is kept on the server. A batch whose changes span several
// collections (a transaction) has the subject eddydb.<cluster>.multi, so read every subject and filter by collection.
const consumer = await js.consumers.get(`EDDYDB_${EDDYDB_CLUSTER}`, {
  filter_subjects: `eddydb.${EDDYDB_CLUSTER}.>`,
  deliver_policy: 'by_start_sequence',
  opt_start_seq: lastSeq() + 1,
});
const messages = await consumer.consume();
process.once('SIGTERM', () => void messages.close());
process.once('SIGINT', () => void messages.close());

for await (const message of messages) {
  const batch = message.json();
  for (const change of batch.changes) {
    if (change.collection !== COLLECTION) continue;
    // change: {collection, operation: insert | update | delete | drop, id, record}
    console.log(JSON.stringify({ sequence: batch.sequence, ...change }));
  }
  saveSeq(batch.sequence);
}
await nc.close();
