/**
 * A join result attached to a record being returned (never stored): the
 * matching target records, written on the wire as a bare array of records.
 */
import type { Fields } from '../tagged.js';

export class JoinedRecords {
  constructor(readonly records: readonly Fields[]) {}
}
