/**
 * A collection's settings, one tab per URL (/collections/{c}/settings/{tab}): the schema's fields, the schema as
 * JSON, indexes, the primary-key alias, and the trash with deleting the collection. Changing anything is
 * admin-only; another key sees the same pages with the controls disabled and the reason in their title.
 */
import { enc } from '../api.js';
import { useAccess } from '../access.js';
import { ErrorBox, Loading } from '../components.js';
import { useApi } from '../hooks.js';
import type { SchemaWire } from '../schema-model.js';
import { ADMIN_ONLY_TITLE, settingsHref, SETTINGS_TABS, type SettingsProps } from './collection-shared.js';
import { TabLinks } from '../tabs.js';
import { SchemaEditor } from './schema-editor.js';
import { SchemaJson } from './schema-json.js';
import { CollectionIndexes } from './collection-indexes.js';
import { PrimaryKeyAlias } from './collection-key.js';
import { CollectionTrash } from './collection-trash.js';
import './collections.css';

export function CollectionSettings({
  collection,
  tab,
  query,
}: {
  collection: string;
  tab: string;
  query: URLSearchParams;
}) {
  const access = useAccess();
  const schema = useApi<SchemaWire>(`/api/schemas/${enc(collection)}`);
  const known = SETTINGS_TABS.find((t) => t.id === tab);
  const locked = access?.admin ? undefined : access ? ADMIN_ONLY_TITLE : 'Checking this key’s rights…';
  const props: SettingsProps | undefined = schema.data && {
    collection,
    schema: schema.data,
    reloadSchema: schema.reload,
    locked,
    query,
  };
  return (
    <main id="main" class="collection-settings">
      <p class="crumbs">
        <a href="/collections">Collections</a> / <a href={`/collections/${enc(collection)}`}>{collection}</a> / Settings
      </p>
      <h1>
        {collection}: {known?.label ?? 'Settings'}
      </h1>
      <TabLinks
        label="Settings of the collection"
        current={tab}
        tabs={SETTINGS_TABS.map((t) => ({ ...t, href: settingsHref(collection, t.id) }))}
      />
      {!known && <p>There is no such tab. Choose one above.</p>}
      <ErrorBox error={schema.error} />
      {schema.loading && !schema.data && <Loading what="the schema" />}
      {known && props && tab === 'schema' && <SchemaEditor {...props} />}
      {known && props && tab === 'json' && <SchemaJson {...props} />}
      {known && props && tab === 'indexes' && <CollectionIndexes {...props} />}
      {known && props && tab === 'key' && <PrimaryKeyAlias {...props} />}
      {known && tab === 'trash' && <CollectionTrash collection={collection} locked={locked} query={query} />}
    </main>
  );
}
