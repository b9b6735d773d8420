/**
 * Replication state of this node ("ripples"): its node id, each peer's
 * acknowledged seq (persisted in `ripple-cursors.json`), which batches are
 * shippable, and applying a batch received from a peer.
 *
 * The outbox is the log itself: segments are kept until every peer has
 * acknowledged past them, so nothing is lost across a restart of either
 * side. Receivers remember the newest origin seq applied per origin node
 * (in DbState, logged with the batch), so a resend is a no-op, and they drop
 * batches that originated on themselves, so rings do not echo.
 *
 * `node-id` and `ripple-cursors.json` are written through StorageFs (private
 * files); `load` reads them once the database is open.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { InvalidInput } from '../../errors.js';
import type { EngineCore } from '../core.js';
import { withNoRipple, type Effect, type LoggedBatch } from '../write/effects.js';
import { validateId } from '../records/ids.js';
import { validateCollectionName } from '../collections/names.js';
import { isPlainObject } from '../values/index.js';
import type { StorageFs } from '../storage/fs.js';
import { effectFromStored, encodePayload, storedEffects } from '../storage/codec.js';

const REPLICATED: ReadonlySet<Effect['kind']> = new Set([
  'createCollection',
  'setCollectionMeta',
  'dropCollection',
  'put',
  'delete',
  'restore',
  'purge',
  'kvSet',
  'kvDelete',
  'kvClear',
  'kvLink',
  'kvUnlink',
]);

/** Records per `put` batch of a resync. */
const RESYNC_CHUNK = 1000;

/** What a resync ships: the batches that rebuild the collections, as of committed `seq`. */
export interface ResyncPlan {
  readonly seq: number;
  readonly collections: readonly string[];
  readonly batches: readonly ShippedBatch[];
  readonly records: number;
}

/**
 * A batch between peers. On the wire (encodeShipped, parseShipped) its
 * effects have the log's stored form (storage/codec.ts). `resync` batches
 * rebuild collections and are applied without dedupe or forwarding.
 */
export interface ShippedBatch {
  readonly origin: string;
  readonly origin_seq: number;
  readonly effects: readonly Effect[];
  readonly resync?: boolean;
}

export class Replication {
  private id = '';
  private readonly cursorFile: string;
  private cursors: Record<string, number> = {};
  private fs: StorageFs | undefined;
  /** Cursor saves run one after another: they share one tmp file. */
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly db: EngineCore) {
    this.cursorFile = path.join(db.dataDir, 'ripple-cursors.json');
  }

  /** This node's id (from `load`). */
  get nodeId(): string {
    return this.id;
  }

  /** Reads the node id (creating it on first start) and the peers' cursors. Called once by Database.open. */
  async load(fs: StorageFs): Promise<void> {
    this.fs = fs;
    this.id = await loadNodeId(fs, this.db.dataDir);
    if (fs.exists(this.cursorFile))
      this.cursors = JSON.parse((await fs.readFile(this.cursorFile)).toString('utf8')) as Record<string, number>;
  }

  /** The seq a peer has acknowledged (0 for a new peer: it gets everything still in the log). */
  acked(peer: string): number {
    return Object.hasOwn(this.cursors, peer) ? this.cursors[peer]! : 0;
  }

  /** Records a peer's acknowledgement (atomic rename); resolves once saved. */
  setAcked(peer: string, seq: number): Promise<void> {
    this.cursors[peer] = seq;
    const fs = this.fs!;
    const tmp = this.cursorFile + '.tmp';
    const save = this.saving
      .catch(() => undefined)
      .then(async () => {
        await fs.writeFile(tmp, JSON.stringify(this.cursors));
        await fs.rename(tmp, this.cursorFile);
      });
    this.saving = save;
    return save;
  }

  /** The oldest seq any configured peer still needs; segments after it are retained. */
  oldestNeeded(peers: readonly string[]): number | undefined {
    if (peers.length === 0) return undefined;
    return Math.min(...peers.map((p) => this.acked(p)));
  }

  /** What of a committed batch goes to peers: undefined when nothing does. */
  shippable(batch: LoggedBatch): ShippedBatch | undefined {
    const effects = batch.effects.filter((e) => REPLICATED.has(e.kind) && !('noRipple' in e && e.noRipple));
    if (effects.length === 0) return undefined;
    const originSeq = batch.origin !== undefined ? batch.originSeq! : batch.seq;
    return { origin: batch.origin ?? this.nodeId, origin_seq: originSeq, effects };
  }

  /**
   * The batches that rebuild `collections` (all by default) on a peer, from a
   * point-in-time capture of the committed state: per collection a drop and
   * re-create, then its records in `put` batches. Marked `resync`.
   */
  resyncPlan(collections?: readonly string[]): ResyncPlan {
    const names = collections ?? [...this.db.state.collections.keys()];
    // Capture a point-in-time copy of references; records are immutable.
    const seq = this.db.state.seq;
    const captured = names.map((name) => {
      const coll = this.db.state.collections.get(name);
      return { name, meta: coll?.meta, rows: coll ? [...coll.inOrder()] : [] };
    });
    const shipped = (effects: Effect[]): ShippedBatch => ({
      origin: this.nodeId,
      origin_seq: 0,
      effects,
      resync: true,
    });
    const batches: ShippedBatch[] = [];
    for (const { name, meta, rows } of captured) {
      const head: Effect[] = [{ kind: 'dropCollection', name }];
      if (meta) head.push({ kind: 'createCollection', meta });
      batches.push(shipped(head));
      for (let i = 0; i < rows.length; i += RESYNC_CHUNK) {
        const puts = rows.slice(i, i + RESYNC_CHUNK).map(([id, entry]): Effect => ({
          kind: 'put',
          collection: name,
          id,
          fields: entry.fields,
          ...(entry.expiresAt !== undefined ? { expiresAt: entry.expiresAt } : {}),
        }));
        batches.push(shipped(puts));
      }
    }
    return { seq, collections: names, batches, records: captured.reduce((n, { rows }) => n + rows.length, 0) };
  }

  /**
   * Applies a batch from a peer (checked by parseShipped). Returns 'applied',
   * 'duplicate' (already seen from that origin) or 'own' (it originated
   * here). Durable on return.
   */
  async applyRemote(batch: ShippedBatch): Promise<'applied' | 'duplicate' | 'own'> {
    if (batch.origin === this.nodeId) return 'own';
    if (batch.resync) {
      return this.db.write((view) => {
        const effects = batch.effects.map(withNoRipple);
        view.stage(effects);
        return { effects, result: 'applied' as const };
      });
    }
    return this.db.write((view) => {
      if ((this.db.state.rippleSeen.get(batch.origin) ?? 0) >= batch.origin_seq)
        return { effects: [], result: 'duplicate' as const };
      const effects: Effect[] = [];
      for (const effect of batch.effects) {
        if (effect.kind === 'put' && !view.collection(effect.collection)) {
          const create: Effect = {
            kind: 'createCollection',
            meta: { name: effect.collection, createdAt: new Date(this.db.now()).toISOString() },
          };
          view.stage([create]);
          effects.push(create);
        }
        view.stage([effect]);
        effects.push(effect);
      }
      return { effects, result: 'applied' as const, origin: { node: batch.origin, seq: batch.origin_seq } };
    });
  }
}

async function loadNodeId(fs: StorageFs, dir: string): Promise<string> {
  const file = path.join(dir, 'node-id');
  if (fs.exists(file)) return (await fs.readFile(file)).toString('utf8').trim();
  const id = randomBytes(8).toString('hex');
  await fs.writeFile(file, id + '\n');
  return id;
}

/** The body a peer is sent (`POST /api/ripple/apply`): `{batches}`, each batch's effects in their stored form. */
export function encodeShipped(batches: readonly ShippedBatch[]): Buffer {
  return encodePayload({ batches: batches.map((batch) => ({ ...batch, effects: storedEffects(batch.effects) })) });
}

/**
 * A batch as a peer sent it, checked and with its effects in memory form.
 * Peers are trusted admins but not trusted to be well-formed.
 */
export function parseShipped(raw: unknown): ShippedBatch {
  if (!isPlainObject(raw) || typeof raw.origin !== 'string' || !/^[0-9a-f]{1,64}$/.test(raw.origin))
    throw new InvalidInput('Ripple batch needs an origin node id');
  if (
    typeof raw.origin_seq !== 'number' ||
    !Number.isSafeInteger(raw.origin_seq) ||
    (raw.origin_seq < 1 && raw.resync !== true)
  )
    throw new InvalidInput('Ripple batch needs a positive origin_seq');
  if (!Array.isArray(raw.effects)) throw new InvalidInput('Ripple batch needs an effects array');
  const effects = (raw.effects as unknown[]).map(effectFromStored);
  for (const effect of effects) checkEffect(effect);
  return { origin: raw.origin, origin_seq: raw.origin_seq, effects, resync: raw.resync === true };
}

function checkEffect(effect: unknown): void {
  if (!isPlainObject(effect) || typeof effect.kind !== 'string' || !REPLICATED.has(effect.kind as Effect['kind']))
    throw new InvalidInput('Ripple batch holds an unknown effect');
  if (effect.kind === 'createCollection' || effect.kind === 'setCollectionMeta') {
    if (!isPlainObject(effect.meta)) throw new InvalidInput('Ripple collection effect needs meta');
    validateCollectionName(effect.meta.name);
    return;
  }
  if (effect.kind === 'dropCollection') {
    validateCollectionName(effect.name);
    return;
  }
  if (effect.kind === 'kvClear') return;
  if (effect.kind === 'kvSet' || effect.kind === 'kvDelete') {
    if (typeof effect.key !== 'string' || effect.key.length === 0)
      throw new InvalidInput('Ripple KV effect needs a key');
    return;
  }
  if (effect.kind === 'kvLink' || effect.kind === 'kvUnlink') {
    if (typeof effect.key !== 'string') throw new InvalidInput('Ripple KV link needs a key');
  }
  validateCollectionName(effect.collection);
  validateId(effect.id);
  if (effect.kind === 'put' && !isPlainObject(effect.fields)) throw new InvalidInput('Ripple put needs fields');
}
