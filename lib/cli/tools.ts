/**
 * The offline tools on a data directory, dispatched from the parsed command
 * line. They take the directory's lock (waiting `--lock-wait` for it), so
 * they refuse to run while a server uses it, and they refuse a directory that holds no EddyDB data
 * unless `--create` (tools/data-dir.ts). Each tool lives in tools/.
 */
import type { CommandLine } from './args/parse-command-line.js';
import { dataDirOf, lockWaitMsOf } from './config.js';
import { runExport } from './tools/export.js';
import { runImport } from './tools/import.js';
import { runSnapshot } from './tools/snapshot.js';
import { runVerify } from './tools/verify-report.js';

export type ToolName = 'snapshot' | 'compact' | 'verify' | 'export' | 'import';

/**
 * Runs one tool; resolves with the exit code. Known refusals throw (CliFailure, DbError, fs errors: see failure.ts).
 */
export async function runTool(tool: ToolName, line: CommandLine): Promise<number> {
  const v = line.values;
  const dataDir = dataDirOf(v);
  const lockWaitMs = lockWaitMsOf(v);
  switch (tool) {
    case 'snapshot':
      return runSnapshot(dataDir, 2, v.isOn('create') ?? false, lockWaitMs);
    case 'compact':
      return runSnapshot(dataDir, 1, v.isOn('create') ?? false, lockWaitMs);
    case 'verify':
      return runVerify(dataDir, lockWaitMs);
    case 'export':
      return runExport({ dataDir, collection: v.text('collection')!, out: v.text('out'), lockWaitMs });
    case 'import': {
      const format = (v.text('format') ?? 'ndjson') as 'ndjson' | 'json';
      return runImport({
        dataDir,
        collection: v.text('collection')!,
        in: v.text('in'),
        format,
        create: v.isOn('create') ?? false,
        lockWaitMs,
      });
    }
    default: {
      const never: never = tool;
      throw new TypeError(`unknown tool ${String(never)}`);
    }
  }
}
