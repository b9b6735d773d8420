/**
 * A stored record as a procedure's answer, encoded by whoever sends it: the
 * HTTP codec writes the common record's JSON text or MessagePack straight
 * from the stored fields (`recordJson`, `recordMsgpack`: no wire object in
 * between), other MessagePack answers and every
 * in-process caller take `toWire()` (Dispatcher.call unwraps it, so
 * WebSocket replies and stored callers see the plain wire object).
 */
import { recordJson, recordMsgpack, recordToWire, type Fields } from '../engine/index.js';

export class WireRecord {
  constructor(readonly fields: Fields, readonly typed: boolean) {}

  /** The record on the wire: typed `{type, value}` wrappers or bare values. */
  toWire(): Record<string, unknown> {
    return recordToWire(this.fields, { typed: this.typed });
  }

  /** Its JSON text when it can be written directly (top-level scalars only), else undefined. */
  directJson(): string | undefined {
    return recordJson(this.fields, { typed: this.typed });
  }

  /** Its MessagePack when it can be written directly (top-level scalars only), else undefined. */
  directMsgpack(): Buffer | undefined {
    return recordMsgpack(this.fields, { typed: this.typed });
  }
}

/** `value` with a WireRecord turned into its wire object (for encoders that do not know it). */
export function unwrapRecord(value: unknown): unknown {
  return value instanceof WireRecord ? value.toWire() : value;
}
