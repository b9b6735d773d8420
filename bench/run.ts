/**
 * `npm run bench [-- scenario ...]`: runs the benchmark scenarios (all by
 * default) and writes bench/results/<scenario>.json. Not part of npm test.
 */
import { httpInsert, httpRead, durabilityModes, accessLog } from './scenarios/http.js';
import { batchInsert, filteredFind, uniqueInsert } from './scenarios/engine.js';
import { recovery } from './scenarios/recovery.js';
import { indexedFind, textSearch, vectorSearch } from './scenarios/search.js';
import { vectorIndexStartup } from './scenarios/vector-index.js';
import { wsFanout } from './scenarios/realtime.js';
import { batchBypass, commitThroughput } from './scenarios/replication.js';
import { regexKvFind, regexSchemaInsert } from './scenarios/regex.js';
import { functionsFindById, functionsGroup, functionsSteps } from './scenarios/functions.js';
import { functionsEdgeCache } from './scenarios/functions-kv.js';
import { bcryptUnderLoad } from './scenarios/functions-crypto.js';
import { chatMessage, chatStreamDelay } from './scenarios/chat.js';

const SCENARIOS: Record<string, () => Promise<void>> = {
  'http-insert': httpInsert,
  'http-read': httpRead,
  'durability-modes': durabilityModes,
  'access-log': accessLog,
  'batch-insert': batchInsert,
  'filtered-find': filteredFind,
  'unique-insert': uniqueInsert,
  recovery,
  'batch-bypass': batchBypass,
  'commit-throughput': commitThroughput,
  'vector-search': vectorSearch,
  'vector-index-startup': vectorIndexStartup,
  'text-search': textSearch,
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
};

const wanted = process.argv.slice(2);
for (const name of wanted.length ? wanted : Object.keys(SCENARIOS)) {
  const run = SCENARIOS[name];
  if (!run) { console.error(`unknown scenario '${name}'; known: ${Object.keys(SCENARIOS).join(', ')}`); process.exit(2); }
  await run();
}
