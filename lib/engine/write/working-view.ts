/**
 * The writer's view during one group commit: committed state plus the
 * effects of earlier operations in the same group that are not yet durable.
 *
 * Readers never see this view; they read DbState, which changes only after
 * the group's log append is durable ("log, then publish"). Operations in a
 * group still see each other's writes, so a group behaves exactly as if its
 * operations had run one after another. Staging runs the same applyEffect
 * as the state does (apply-effect.ts), against this view's overlay.
 */
import { applyEffect, type EffectTarget, type RecordImage } from './apply-effect.js';
import type { Effect } from './effects.js';
import { StagedRecords, stagedEntry } from './staged-records.js';
import { StagedValues, type KeyKind } from './staged-values.js';
import type { ApiKeyRecord, CollectionMeta, DbState, KvEntry, RecordEntry, TrashEntry } from './state.js';
import type { Fields, Value } from '../values/index.js';

const GONE = null;

export class WorkingView {
  private readonly colls = new Map<string, CollectionMeta | null>();
  private readonly recs = new Map<string, StagedRecords>();
  /**
   * Collections whose overlay map in `recs` belongs to this view alone. A
   * fork shares the maps with its parent and whichever writes first copies
   * (copy on write), so forking costs the number of collections, not records.
   */
  private readonly ownRecs = new Set<string>();
  /** Staged value indexes (unique checks, alias lookups) by collection, shared with forks like `recs`. */
  private readonly values = new Map<string, StagedValues>();
  private readonly ownValues = new Set<string>();
  private readonly trash = new Map<string, Map<string, TrashEntry | null>>();
  private readonly keys = new Map<string, ApiKeyRecord | null>();
  private config: Readonly<Record<string, unknown>> | undefined;
  private readonly kv = new Map<string, KvEntry | null>();
  private kvCleared = false;
  /** Record images staged here and then replaced here, by collection (Serializable predicate checks see them). */
  private readonly replaced = new Map<string, Array<[string, Fields]>>();
  /** Collections dropped in this group: their committed records are gone even if recreated. */
  private readonly dropped = new Set<string>();
  /** Effects staged here so far (adopt checks that a fork's parent has not changed since). */
  private staged = 0;
  /** For a fork: the view it was forked from, and that view's `staged` then. */
  private forkedFrom: { readonly view: WorkingView; readonly staged: number } | undefined;

  /** `nextSeq` is the seq the staged effects will carry, used for version stamps. */
  constructor(
    readonly state: DbState,
    public nextSeq: number,
  ) {}

  collection(name: string): CollectionMeta | undefined {
    const staged = this.colls.get(name);
    if (staged !== undefined) return staged ?? undefined;
    return this.state.collections.get(name)?.meta;
  }

  collectionNames(): string[] {
    const names = new Set(this.state.collections.keys());
    for (const [name, meta] of this.colls) meta ? names.add(name) : names.delete(name);
    return [...names];
  }

  record(collection: string, id: string): RecordEntry | undefined {
    const staged = this.recs.get(collection)?.get(id);
    if (staged !== undefined) return staged ?? undefined;
    if (this.dropped.has(collection)) return undefined;
    return this.state.collections.get(collection)?.records.get(id);
  }

  /** Every live record of a collection, staged writes included. */
  *records(collection: string): IterableIterator<[string, RecordEntry]> {
    const overlay = this.recs.get(collection);
    if (!this.dropped.has(collection)) {
      for (const [id, entry] of this.state.collections.get(collection)?.records ?? []) {
        const staged = overlay?.get(id);
        if (staged === undefined) yield [id, entry];
        else if (staged) yield [id, staged];
      }
    }
    for (const [id, staged] of overlay ?? []) {
      if (staged && !this.committedHas(collection, id)) yield [id, staged];
    }
  }

  trashed(collection: string, id: string): TrashEntry | undefined {
    const staged = this.trash.get(collection)?.get(id);
    if (staged !== undefined) return staged ?? undefined;
    return this.state.trash.get(collection)?.get(id);
  }

  *trashedRecords(collection: string): IterableIterator<[string, TrashEntry]> {
    const overlay = this.trash.get(collection);
    for (const [id, trashed] of this.state.trash.get(collection) ?? []) {
      const staged = overlay?.get(id);
      if (staged === undefined) yield [id, trashed];
      else if (staged) yield [id, staged];
    }
    for (const [id, staged] of overlay ?? [])
      if (staged && !this.state.trash.get(collection)?.has(id)) yield [id, staged];
  }

  key(id: string): ApiKeyRecord | undefined {
    const staged = this.keys.get(id);
    return staged !== undefined ? (staged ?? undefined) : this.state.keys.get(id);
  }

  kvEntry(key: string): KvEntry | undefined {
    const staged = this.kv.get(key);
    if (staged !== undefined) return staged ?? undefined;
    return this.kvCleared ? undefined : this.state.kv.get(key);
  }

  currentConfig(): Readonly<Record<string, unknown>> {
    return this.config ?? this.state.config;
  }

  /**
   * A copy of this view that can be discarded: stage into the fork, and
   * replay its effects into this view only if the work succeeds.
   */
  fork(): WorkingView {
    const fork = new WorkingView(this.state, this.nextSeq);
    fork.forkedFrom = { view: this, staged: this.staged };
    for (const [key, staged] of this.colls) fork.colls.set(key, staged);
    for (const [key, overlay] of this.recs) fork.recs.set(key, overlay);
    this.ownRecs.clear();
    for (const [key, staged] of this.values) fork.values.set(key, staged);
    this.ownValues.clear();
    for (const [key, overlay] of this.trash) fork.trash.set(key, new Map(overlay));
    for (const [key, staged] of this.keys) fork.keys.set(key, staged);
    for (const name of this.dropped) fork.dropped.add(name);
    for (const [collection, images] of this.replaced) fork.replaced.set(collection, [...images]);
    fork.config = this.config;
    for (const [key, staged] of this.kv) fork.kv.set(key, staged);
    fork.kvCleared = this.kvCleared;
    return fork;
  }

  /** True when staged effects dropped `collection` (every committed record of it changed). */
  droppedHere(collection: string): boolean {
    return this.dropped.has(collection);
  }

  /**
   * Every image of a record of `collection` that staged effects changed: the committed
   * image of each touched record (its state before), each staged image, and
   * staged images replaced later in this view. Dropped collections: see droppedHere.
   */
  *changedImages(collection: string): IterableIterator<[string, Fields]> {
    for (const [id, staged] of this.recs.get(collection) ?? []) {
      const committed = this.dropped.has(collection)
        ? undefined
        : this.state.collections.get(collection)?.records.get(id);
      if (committed) yield [id, committed.fields];
      if (staged) yield [id, staged.fields];
    }
    yield* this.replaced.get(collection) ?? [];
  }

  /**
   * Ids of records staged in this view whose `field` may hold `value` (compared
   * by the keys of UniqueIndexes: a superset of those that do). With the
   * committed holders, every record a scan of the view would find.
   */
  stagedHolders(collection: string, field: string, kind: KeyKind, value: Value): readonly string[] {
    const overlay = this.recs.get(collection);
    if (!overlay || overlay.size === 0) return [];
    return this.stagedValues(collection).holders(field, kind, value, () => stagedImages(overlay));
  }

  /** Makes `effects`, from `from` on, visible to later operations of the same group. */
  stage(effects: readonly Effect[], from = 0): void {
    this.staged += 1;
    for (let i = from; i < effects.length; i++) applyEffect(this.overlay, effects[i]!);
  }

  /**
   * Takes over what a fork of this view staged, instead of staging the same
   * effects again (a 10,000-record batch stages into a fork chunk by chunk).
   * Only a fork of this view made since its last stage qualifies; returns
   * false otherwise, and the caller stages. The fork must not be used after.
   */
  adopt(fork: WorkingView): boolean {
    if (fork.forkedFrom?.view !== this || fork.forkedFrom.staged !== this.staged || fork.nextSeq !== this.nextSeq)
      return false;
    fork.forkedFrom = undefined;
    replaceWith(this.colls, fork.colls);
    replaceWith(this.recs, fork.recs);
    replaceWith(this.ownRecs, fork.ownRecs);
    replaceWith(this.values, fork.values);
    replaceWith(this.ownValues, fork.ownValues);
    replaceWith(this.trash, fork.trash);
    replaceWith(this.keys, fork.keys);
    replaceWith(this.kv, fork.kv);
    replaceWith(this.replaced, fork.replaced);
    replaceWith(this.dropped, fork.dropped);
    this.config = fork.config;
    this.kvCleared = fork.kvCleared;
    // The maps now belong to this view: the fork, were it used again, copies before writing.
    fork.ownRecs.clear();
    fork.ownValues.clear();
    this.staged += 1;
    return true;
  }

  private committedHas(collection: string, id: string): boolean {
    return !this.dropped.has(collection) && (this.state.collections.get(collection)?.records.has(id) ?? false);
  }

  /** Keeps the staged image of `id` that is about to be overwritten. */
  private noteReplaced(collection: string, id: string): void {
    const staged = this.recs.get(collection)?.get(id);
    if (!staged) return;
    let images = this.replaced.get(collection);
    if (!images) this.replaced.set(collection, (images = []));
    images.push([id, staged.fields]);
  }

  private recOverlay(collection: string): StagedRecords {
    let overlay = this.recs.get(collection);
    if (!this.ownRecs.has(collection)) {
      this.recs.set(collection, (overlay = new StagedRecords(overlay)));
      this.ownRecs.add(collection);
    }
    return overlay!;
  }

  /** This view's own value indexes of `collection` (made, or copied from a fork's parent, on first use). */
  private stagedValues(collection: string): StagedValues {
    let sv = this.values.get(collection);
    if (!this.ownValues.has(collection)) {
      this.values.set(collection, (sv = sv ? sv.copy() : new StagedValues()));
      this.ownValues.add(collection);
    }
    return sv!;
  }

  /** Keeps the value indexes of `collection`, if any were built, in step with a staged image change of `id`. */
  private followStaged(collection: string, id: string, after: Fields | undefined): void {
    if (!this.values.has(collection)) return;
    const before = this.recs.get(collection)?.get(id)?.fields;
    if (after) this.stagedValues(collection).put(id, before, after);
    else if (before) this.stagedValues(collection).remove(id, before);
  }

  private trashOverlay(collection: string): Map<string, TrashEntry | null> {
    let overlay = this.trash.get(collection);
    if (!overlay) this.trash.set(collection, (overlay = new Map()));
    return overlay;
  }

  /**
   * The overlay as an effect target. Kept private so operations, which get
   * this view, can change it only by staging effects. A class nested in
   * this one (so it may touch the private maps) with its methods on the
   * prototype: a view is made per group and per transaction replay, and
   * one object is cheaper than a closure per method.
   */
  private static readonly Overlay = class implements EffectTarget {
    constructor(private readonly target: WorkingView) {}
    collection(name: string): CollectionMeta | undefined {
      return this.target.collection(name);
    }
    record(collection: string, id: string): RecordEntry | undefined {
      return this.target.record(collection, id);
    }
    trashed(collection: string, id: string): TrashEntry | undefined {
      return this.target.trashed(collection, id);
    }
    config(): Readonly<Record<string, unknown>> {
      return this.target.currentConfig();
    }
    setCollection(meta: CollectionMeta): void {
      this.target.colls.set(meta.name, meta);
    }
    dropCollection(name: string): void {
      const view = this.target;
      view.colls.set(name, GONE);
      view.dropped.add(name);
      view.recs.delete(name);
      view.ownRecs.delete(name);
      view.values.delete(name);
      view.ownValues.delete(name);
      view.trash.set(name, new Map([...view.trashedRecords(name)].map(([id]) => [id, null])));
    }
    putRecord(collection: string, id: string, image: RecordImage, madeId: boolean): void {
      const view = this.target;
      if (!madeId) view.noteReplaced(collection, id);
      view.followStaged(collection, id, image.fields);
      const overlay = view.recOverlay(collection);
      if (madeId) overlay.putNew(id, image, view.nextSeq);
      else overlay.set(id, stagedEntry(image, view.nextSeq));
    }
    removeRecord(collection: string, id: string): void {
      this.target.noteReplaced(collection, id);
      this.target.followStaged(collection, id, undefined);
      this.target.recOverlay(collection).set(id, GONE);
    }
    putTrashed(collection: string, id: string, trashed: TrashEntry): void {
      this.target.trashOverlay(collection).set(id, trashed);
    }
    removeTrashed(collection: string, id: string): void {
      this.target.trashOverlay(collection).set(id, GONE);
    }
    setKv(key: string, entry: KvEntry): void {
      this.target.kv.set(key, entry);
    }
    deleteKv(key: string): void {
      this.target.kv.set(key, GONE);
    }
    clearKv(): void {
      this.target.kv.clear();
      this.target.kvCleared = true;
    }
    // Operations never read KV links inside the writer, so the overlay does not keep them.
    link(): void {}
    unlink(): void {}
    setApiKey(key: ApiKeyRecord): void {
      this.target.keys.set(key.id, key);
    }
    deleteApiKey(id: string): void {
      this.target.keys.set(id, GONE);
    }
    setConfig(config: Readonly<Record<string, unknown>>): void {
      this.target.config = config;
    }
  };

  private readonly overlay: EffectTarget = new WorkingView.Overlay(this);
}

/** Makes `to` hold what `from` holds (entries by reference). */
function replaceWith<K, V>(to: Map<K, V> | Set<K>, from: Map<K, V> | Set<K>): void {
  to.clear();
  if (to instanceof Map) for (const [key, value] of from as Map<K, V>) to.set(key, value);
  else for (const key of from as Set<K>) to.add(key);
}

function* stagedImages(overlay: StagedRecords): IterableIterator<[string, Fields]> {
  for (const [id, staged] of overlay) if (staged) yield [id, staged.fields];
}
