// @ts-check
/**
 * V8 settings for the server process, set before anything else is loaded
 * (the launcher imports this module first), so that they hold from the
 * first allocation of the server's code.
 *
 * Allocation-site pretenuring off. V8 watches the objects each object
 * literal makes, and once most of them survive a few scavenges it makes
 * that literal's objects in old space directly. A stored record is made
 * by a literal (values/record-object.ts), and nearly all of them survive,
 * so their literals were soon pretenured; but a record's strings are made
 * by the runtime and stay young, so every field stored into an old record
 * took the write barrier's slow path and a remembered slot for the next
 * scavenge to visit. Recovering a snapshot of 1M records took 3.75-3.85 s
 * without it against 4.19-4.22 s with it, interleaved; batches of 10,000
 * inserts over HTTP measured the same either way (docs/benchmarks.md,
 * Notes). A flag set on the command line (`node --allocation-site-pretenuring
 * bin/eddydb.js`) wins.
 */
import v8 from 'node:v8';

if (!process.execArgv.some((arg) => /^--(no-)?allocation[-_]site[-_]pretenuring\b/.test(arg)))
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
