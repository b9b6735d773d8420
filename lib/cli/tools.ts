/**
 * The offline tools on a data directory or a backup file (and `backup`,
 * which asks a running server for one), dispatched from the parsed command
 * line. Those on a data directory take its lock (waiting `--lock-wait` for
 * it), so they refuse to run while a server uses it, and they refuse a
 * directory that holds no EddyDB data unless `--create` (tools/data-dir.ts);
 * `restore` refuses one that is not empty. Each tool lives in tools/.
 */
import type { CommandLine } from './args/parse-command-line.js';
import { dataDirOf, lockWaitMsOf } from './config.js';
import { runExport } from './tools/export.js';
import { runImport } from './tools/import.js';
import { runSnapshot } from './tools/snapshot.js';
import { runVerify } from './tools/verify-report.js';
import { runBackup } from './tools/backup.js';
import { runRestore, runVerifyBackup } from './tools/backup-file.js';
import { UsageError } from './args/option-values.js';

export type ToolName = 'snapshot' | 'compact' | 'verify' | 'export' | 'import' | 'backup' | 'restore';

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
      return line.positional === undefined ? runVerify(dataDir, lockWaitMs) : runVerifyBackup(line.positional);
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
    case 'backup':
      return runBackup({ url: v.text('url') ?? 'http://127.0.0.1:8080', key: v.text('key')!, out: v.text('out')! });
    case 'restore':
      if (line.positional === undefined)
        throw new UsageError('restore needs the backup file: eddydb restore FILE --data-dir DIR');
      return runRestore(line.positional, dataDir, lockWaitMs);
    default: {
      const never: never = tool;
      throw new TypeError(`unknown tool ${String(never)}`);
    }
  }
}
