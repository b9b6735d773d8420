/**
 * Collections: every collection the key sees (useCollectionNames: an admin lists them, a restricted key gets its
 * granted ones) with its record and trash counts from GET /api/collections/{c}, a form to create one, and delete
 * with confirmation. Create and delete are admin-only: disabled, with the reason, for other keys.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { useAccess } from '../access.js';
import { ConfirmButton, ErrorBox, Loading } from '../components.js';
import { useCollectionNames } from '../hooks.js';
import { CreateCollection } from './collection-create.js';
import { ADMIN_ONLY_TITLE, dropQuestion } from './collection-shared.js';
import './collections.css';

interface Counts {
  records?: number;
  trash?: number;
  /** Why the counts are missing (not created yet, not readable). */
  problem?: string;
}

interface CollectionInfo {
  record_count: number;
  analytics?: { trash_count?: number };
}

/** Each collection's counts, asked one collection at a time; a failure marks only its row. */
function useCounts(names: string[] | undefined): Record<string, Counts> {
  const [counts, setCounts] = useState<Record<string, Counts>>({});
  const key = names?.join('\n');
  useEffect(() => {
    if (!names) return;
    let live = true;
    setCounts({});
    for (const name of names) {
      api<CollectionInfo>('GET', `/api/collections/${enc(name)}`).then(
        (c) =>
          live && setCounts((s) => ({ ...s, [name]: { records: c.record_count, trash: c.analytics?.trash_count } })),
        (err: unknown) => live && setCounts((s) => ({ ...s, [name]: { problem: (err as Error).message } })),
      );
    }
    return () => {
      live = false;
    };
  }, [key]);
  return counts;
}

export function Collections() {
  const access = useAccess();
  const admin = access?.admin === true;
  const { names, listed, error, reload } = useCollectionNames();
  const counts = useCounts(names);
  const [actionError, setActionError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');

  const drop = async (name: string) => {
    setActionError(null);
    try {
      await api('DELETE', `/api/collections/${enc(name)}`);
      setNotice(`Collection ${name} deleted.`);
      reload();
    } catch (err) {
      setActionError(err);
    }
  };

  return (
    <main id="main" class="collections">
      <h1>Collections</h1>
      <CreateCollection
        disabled={!admin}
        title={access && !admin ? ADMIN_ONLY_TITLE : undefined}
        onCreated={(name) => {
          setNotice(`Collection ${name} created.`);
          reload();
        }}
      />
      <p class="notice" role="status">
        {notice}
      </p>
      <ErrorBox error={error ?? actionError} />
      {!listed && (
        <p class="muted">This key may not list collections: these are the collections it is granted by name.</p>
      )}
      {!names && !error && <Loading what="collections" />}
      {names && names.length === 0 && (
        <p class="muted">No collections yet. Create one above, or insert a record to create one.</p>
      )}
      {names && names.length > 0 && (
        <div class="scroll">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col" class="num">
                  Records
                </th>
                <th scope="col" class="num">
                  In trash
                </th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {names.map((name) => {
                const c = counts[name];
                return (
                  <tr key={name} data-collection={name}>
                    <td>
                      <a href={`/collections/${enc(name)}`}>{name}</a>
                    </td>
                    <td class="num" data-testid="record-count" title={c?.problem}>
                      {c?.problem ? '—' : c?.records === undefined ? '…' : c.records.toLocaleString('en')}
                    </td>
                    <td class="num" data-testid="trash-count">
                      {c?.trash === undefined ? '—' : c.trash.toLocaleString('en')}
                    </td>
                    <td>
                      <div class="row-actions">
                        <a href={`/collections/${enc(name)}/settings`} aria-label={`Settings of ${name}`}>
                          Settings
                        </a>
                        <a href={`/realtime/${enc(name)}`} aria-label={`Watch live changes of ${name}`}>
                          Watch
                        </a>
                        <ConfirmButton
                          label={`Delete ${name}`}
                          question={dropQuestion(name, c?.records, c?.trash)}
                          confirmLabel="Delete for good"
                          disabled={!admin}
                          title={access && !admin ? ADMIN_ONLY_TITLE : undefined}
                          onConfirm={() => drop(name)}
                        />
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </main>
  );
}
