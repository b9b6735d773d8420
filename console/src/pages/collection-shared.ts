/** What the collection pages share: settings URLs, the props every settings tab gets, the admin-only reason. */
import { enc } from '../api.js';
import { NOT_ALLOWED } from '../access.js';
import type { SchemaWire } from '../schema-model.js';

export const ADMIN_ONLY_TITLE = `${NOT_ALLOWED}: only an admin key may change collections`;

export const SETTINGS_TABS = [
  { id: 'schema', label: 'Fields' },
  { id: 'json', label: 'Schema JSON' },
  { id: 'indexes', label: 'Indexes' },
  { id: 'key', label: 'Primary key' },
  { id: 'trash', label: 'Trash and delete' },
];

/** The settings URL of a collection's tab. */
export function settingsHref(collection: string, tab = 'schema'): string {
  return `/collections/${enc(collection)}/settings${tab === 'schema' ? '' : `/${tab}`}`;
}

/** What the tabs share: the collection, its schema (reloaded after a change) and whether the key may change it. */
export interface SettingsProps {
  collection: string;
  schema: SchemaWire;
  reloadSchema(): void;
  /** Why changes are disabled (a title), or undefined when the key may make them. */
  locked: string | undefined;
  query: URLSearchParams;
}

/** The confirmation question before dropping a collection: what goes, and that it does not come back. */
export function dropQuestion(name: string, records?: number, trash?: number): string {
  const what =
    records === undefined ? 'its records' : `its ${records.toLocaleString('en')} record${records === 1 ? '' : 's'}`;
  const inTrash = trash ? ` and the ${trash.toLocaleString('en')} in its trash` : ' and its trash';
  return (
    `Delete collection ${name}? This removes its schema, its indexes, ${what}${inTrash} for good: ` +
    'a deleted collection cannot be restored. Records deleted one by one go to the trash instead.'
  );
}
