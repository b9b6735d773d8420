/**
 * Primary-key aliases: a collection's schema may name a field whose value
 * the record routes accept in place of the id. These find the record an
 * alias value names, in committed records (through the alias index of
 * UniqueIndexes) or in a writer's view (committed and staged holders).
 */
import type { UniqueIndexes } from '../indexes/unique-index.js';
import { bareValue } from '../values/index.js';
import type { WorkingView } from '../write/working-view.js';
import type { RecordEntry } from '../write/state.js';

/** The id and entry of the record whose primary-key-alias field holds `value` (compared as text). */
export function findByAlias(
  records: Iterable<[string, RecordEntry]>,
  alias: string,
  value: string,
): [string, RecordEntry] | undefined {
  for (const [rid, entry] of records) {
    if (Object.hasOwn(entry.fields, alias) && String(bareValue(entry.fields[alias]!)) === value) return [rid, entry];
  }
  return undefined;
}

/**
 * The record id for an id or primary-key-alias value in `view`, as the
 * direct record routes resolve it; the value itself when nothing matches.
 */
export function resolveRecordId(
  view: WorkingView,
  collection: string,
  idOrAlias: string,
  unique?: UniqueIndexes,
): string {
  if (view.record(collection, idOrAlias)) return idOrAlias;
  const alias = view.collection(collection)?.schema?.primary_key_alias;
  if (!alias || alias === 'id') return idOrAlias;
  if (!unique) return findByAlias(view.records(collection), alias, idOrAlias)?.[0] ?? idOrAlias;
  // Records that may hold the text: committed holders and staged holders, each read at its image in the view.
  const matches = new Set<string>();
  const consider = (id: string): void => {
    const entry = view.record(collection, id);
    if (entry && Object.hasOwn(entry.fields, alias) && String(bareValue(entry.fields[alias]!)) === idOrAlias)
      matches.add(id);
  };
  for (const id of unique.aliasHolders(collection, alias, idOrAlias)) consider(id);
  for (const id of view.stagedHolders(collection, alias, 'alias', idOrAlias)) consider(id);
  if (matches.size === 0) return idOrAlias;
  if (matches.size === 1) return [...matches][0]!;
  // Several records share the text: the first in record order wins, as a scan finds it.
  return findByAlias(view.records(collection), alias, idOrAlias)?.[0] ?? idOrAlias;
}

/** `findByAlias` over committed records, through the alias index. */
export function committedByAlias(
  unique: UniqueIndexes,
  records: ReadonlyMap<string, RecordEntry>,
  collection: string,
  alias: string,
  value: string,
): [string, RecordEntry] | undefined {
  const holders = unique.aliasHolders(collection, alias, value);
  if (holders.size === 0) return undefined;
  if (holders.size > 1) return findByAlias(records, alias, value);
  const [id] = holders;
  const entry = records.get(id!);
  return entry ? [id!, entry] : undefined;
}
