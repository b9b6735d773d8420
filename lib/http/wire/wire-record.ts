/**
 * A stored record as a procedure's answer, encoded by whoever sends it: the
 * HTTP codec writes the common record's JSON text or MessagePack straight
 * from the stored fields (`recordJson`, `recordMsgpack`: no wire object in
 * between), other MessagePack answers and every
 * in-process caller take `toWire()` (Dispatcher.call unwraps it, so
 * WebSocket replies and stored callers see the plain wire object).
 */
import { recordJson, recordMsgpack, recordToWire, type Fields } from '../../engine/index.js';
import { RenderedRecords } from './rendered-records.js';

/** Records' answers as last rendered, with typed wrappers and with bare values (the setting can change at run time). */
const json = {
  typed: new RenderedRecords((fields) => recordJson(fields, { typed: true })),
  bare: new RenderedRecords((fields) => recordJson(fields, { typed: false })),
};
const msgpack = {
  typed: new RenderedRecords((fields) => ownBuffer(recordMsgpack(fields, { typed: true }))),
  bare: new RenderedRecords((fields) => ownBuffer(recordMsgpack(fields, { typed: false }))),
};

/**
 * A copy with its own memory: recordMsgpack's answer is a slice of Buffer's shared pool, which a remembered answer
 * would keep whole.
 */
function ownBuffer(packed: Buffer | undefined): Buffer | undefined {
  if (packed === undefined) return undefined;
  const own = Buffer.allocUnsafeSlow(packed.length);
  packed.copy(own);
  return own;
}

export class WireRecord {
  /** `stored`: `fields` is a stored record (frozen, replaced on write), whose rendered text may be remembered. */
  constructor(
    readonly fields: Fields,
    readonly typed: boolean,
    readonly stored = false,
  ) {}

  /** The record on the wire: typed `{type, value}` wrappers or bare values. */
  toWire(): Record<string, unknown> {
    return recordToWire(this.fields, { typed: this.typed });
  }

  /** Its JSON text when it can be written directly (top-level scalars only), else undefined. */
  directJson(): string | undefined {
    if (!this.stored) return recordJson(this.fields, { typed: this.typed });
    return (this.typed ? json.typed : json.bare).answer(this.fields);
  }

  /** Its MessagePack when it can be written directly (top-level scalars only), else undefined. */
  directMsgpack(): Buffer | undefined {
    if (!this.stored) return recordMsgpack(this.fields, { typed: this.typed });
    return (this.typed ? msgpack.typed : msgpack.bare).answer(this.fields);
  }
}

/** `value` with a WireRecord turned into its wire object (for encoders that do not know it). */
export function unwrapRecord(value: unknown): unknown {
  return value instanceof WireRecord ? value.toWire() : value;
}
