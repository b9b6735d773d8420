/**
 * `GET /api/admin/backup` (admin): the whole database at one seq, streamed
 * as the client reads it while writes go on (the engine's storage/backup/).
 * The seq is known before the first byte, so it travels in the
 * `X-EddyDB-Backup-Seq` header; the body is the backup file that `eddydb
 * restore` reads. A client that goes away ends the capture.
 */
import Type from 'typebox';
import { defineProcedure } from '../procedure.js';
import { FileAnswer } from '../../wire/file-answer.js';

/** The header naming the seq of the last batch a backup holds. */
export const BACKUP_SEQ_HEADER = 'X-EddyDB-Backup-Seq';

export const adminBackup = defineProcedure({
  name: 'admin.backup',
  kind: 'query',
  access: 'admin',
  input: () => undefined,
  handler: async (_i, ctx) => {
    const backup = await ctx.snapshots.backup({ version: ctx.version });
    return new FileAnswer(backup.chunks, {
      [BACKUP_SEQ_HEADER]: String(backup.seq),
      'Content-Disposition': `attachment; filename="eddydb-${backup.seq}.backup"`,
    });
  },
  schema: {
    summary: 'An online backup: the whole database at one seq, streamed',
    description:
      'The body is a backup file (`application/octet-stream`; format in lib/engine/FORMAT.md, Backups) for ' +
      '`eddydb restore`; the `X-EddyDB-Backup-Seq` header names the seq it stands at. Writes go on meanwhile. ' +
      'It holds the secrets that sign tokens: keep it as private as the data directory.',
    response: Type.String({ contentMediaType: 'application/octet-stream', description: 'The backup file.' }),
    media: 'application/octet-stream',
  },
});
