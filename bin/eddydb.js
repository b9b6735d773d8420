#!/usr/bin/env node
// @ts-check
/**
 * The `eddydb` command as installed (package `bin`, and what `npm start` runs
 * with `exec`, so this process is the server and gets the signals directly).
 * It builds dist/ first only when lib/ changed since the last build (see
 * build.js), then runs the compiled command line in this same process.
 * V8's settings for the server come first (v8-flags.js).
 */
import './v8-flags.js';
import { pathToFileURL } from 'node:url';
import { CLI_ENTRY, ensureBuilt } from './build.js';

try {
  await ensureBuilt();
} catch (err) {
  process.stderr.write(`eddydb: ${/** @type {Error} */ (err).message}\n`);
  process.exit(1);
}
await import(pathToFileURL(CLI_ENTRY).href);
