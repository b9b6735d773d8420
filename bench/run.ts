/**
 * `npm run bench [-- scenario ...]`: builds dist/ once, then runs the
 * benchmark scenarios (all by default), each after the quiet gate
 * (bench/lib/quiet.ts), and writes bench/results/<scenario>.json. Not part
 * of npm test. One line per scenario below: keep it a simple table.
 */
import { buildOnce } from './lib/procs.js';
import { requireQuiet } from './lib/quiet.js';
import { httpInsert, httpRead, httpReadMsgpack, durabilityModes, accessLog } from './scenarios/http.js';
import { wsRead } from './scenarios/ws-read.js';
import { batchInsertHttp } from './scenarios/batch-http.js';
import { longRequests } from './scenarios/long-requests.js';
import { batchInsert, filteredFind, uniqueInsert } from './scenarios/engine.js';
import { recovery } from './scenarios/recovery.js';
import { indexedFind, textSearch, vectorSearch } from './scenarios/search.js';
import { vectorIndexStartup } from './scenarios/vector-index.js';
import { vectorSearchHttp } from './scenarios/vector-http.js';
import { wsFanout } from './scenarios/realtime.js';
import { batchBypass, commitThroughput } from './scenarios/replication.js';
import { transactionsHttp } from './scenarios/transactions-http.js';
import { scanHttp } from './scenarios/scan-http.js';
import { textSearchHttp } from './scenarios/text-search-http.js';
import { regexKvFind, regexSchemaInsert } from './scenarios/regex.js';
import { functionsFindById, functionsGroup, functionsSteps } from './scenarios/functions.js';
import { functionsEdgeCache } from './scenarios/functions-kv.js';
import { bcryptUnderLoad } from './scenarios/functions-crypto.js';
import { chatMessage, chatStreamDelay } from './scenarios/chat.js';
import { memory, memory3m } from './scenarios/memory.js';
import { testing } from './scenarios/testing.js';
import { clusterScenario } from './scenarios/cluster.js';

const SCENARIOS: Record<string, () => Promise<void>> = {
  'http-insert': httpInsert,
  'http-read': httpRead,
  'http-read-msgpack': httpReadMsgpack,
  'ws-read': wsRead,
  'batch-insert-http': batchInsertHttp,
  'long-requests': longRequests,
  'durability-modes': durabilityModes,
  'access-log': accessLog,
  'batch-insert': batchInsert,
  'filtered-find': filteredFind,
  'scan-http': scanHttp,
  'unique-insert': uniqueInsert,
  recovery,
  'batch-bypass': batchBypass,
  'commit-throughput': commitThroughput,
  'transactions-http': transactionsHttp,
  'vector-search': vectorSearch,
  'vector-index-startup': vectorIndexStartup,
  'vector-search-http': vectorSearchHttp,
  'text-search': textSearch,
  'text-search-http': textSearchHttp,
  'indexed-find': indexedFind,
  'ws-fanout': wsFanout,
  'regex-kv-find': () => regexKvFind(),
  'regex-schema-insert': () => regexSchemaInsert(),
  'functions-findbyid': functionsFindById,
  'functions-group': functionsGroup,
  'functions-steps': functionsSteps,
  'functions-edge-cache': functionsEdgeCache,
  'bcrypt-under-load': bcryptUnderLoad,
  'chat-message': chatMessage,
  'chat-stream-delay': chatStreamDelay,
  memory,
  'memory-3m': memory3m,
  testing,
  cluster: clusterScenario,
};

/** Scenarios run only when named: each takes several minutes. */
const ON_REQUEST: ReadonlySet<string> = new Set(['memory-3m']);

const wanted = process.argv.slice(2);
const names = wanted.length ? wanted : Object.keys(SCENARIOS).filter((name) => !ON_REQUEST.has(name));
const unknown = names.filter((n) => !SCENARIOS[n]);
if (unknown.length) {
  console.error(`unknown scenario '${unknown.join("', '")}'; known: ${Object.keys(SCENARIOS).join(', ')}`);
  process.exit(2);
}
await requireQuiet('before building');
buildOnce();
for (const name of names) {
  await requireQuiet(`before ${name}`);
  await SCENARIOS[name]!();
}
