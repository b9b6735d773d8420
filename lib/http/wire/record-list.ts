/**
 * A list of records as a procedure's answer (a find), encoded by whoever
 * sends it. A short list is rendered in one piece, like any answer. A long
 * one (a find with no limit over a million records is about 200 MB of JSON)
 * is rendered in chunks, in slices of the event loop, and handed to the
 * transport as a stream it writes with back-pressure: no single string of
 * the whole answer, and no request held while it renders.
 *
 * JSON and MessagePack chunks carry the same answer a whole rendering would:
 * a JSON array, or a MessagePack array whose header gives the count.
 */
import { Packr } from 'msgpackr';
import {
  recordJson,
  recordsJson,
  recordMsgpack,
  recordToWire,
  Slicer,
  toJson,
  type Fields,
} from '../../engine/index.js';

/** Lists longer than this are streamed; shorter ones are rendered whole (and get a Content-Length). */
export const STREAM_MIN_RECORDS = 2_000;
/** Rendered text gathered before it is handed on as one chunk. */
const CHUNK_BYTES = 64 * 1024;
/** Records rendered between looks at the clock. */
const CHECK_EVERY = 64;

const packr = new Packr({ useRecords: false, moreTypes: false, encodeUndefinedAsNil: true });

export class RecordList {
  constructor(
    readonly records: readonly Fields[],
    readonly typed: boolean,
  ) {}

  get length(): number {
    return this.records.length;
  }

  /** Whether the answer is long enough to be streamed. */
  get long(): boolean {
    return this.records.length > STREAM_MIN_RECORDS;
  }

  /** The records on the wire, as plain objects (for encoders that do not know a RecordList). */
  toWire(): Record<string, unknown>[] {
    return this.records.map((r) => recordToWire(r, { typed: this.typed }));
  }

  /** toWire() in slices of the event loop. */
  async toWireInSlices(): Promise<Record<string, unknown>[]> {
    const slicer = new Slicer(CHECK_EVERY);
    const out = new Array<Record<string, unknown>>(this.records.length);
    for (let i = 0; i < this.records.length; i++) {
      out[i] = recordToWire(this.records[i]!, { typed: this.typed });
      if (slicer.counted()) await slicer.pause();
    }
    return out;
  }

  /** The whole answer as JSON text. */
  json(): string {
    const whole = recordsJson(this.records, { typed: this.typed });
    if (whole !== undefined) return whole;
    const parts = new Array<string>(this.records.length);
    for (let i = 0; i < this.records.length; i++) parts[i] = this.recordJson(this.records[i]!);
    return `[${parts.join(',')}]`;
  }

  /** The whole answer as MessagePack. */
  msgpack(): Buffer {
    return Buffer.concat([arrayHeader(this.records.length), ...this.records.map((r) => this.recordMsgpack(r))]);
  }

  /** The JSON text in chunks of about CHUNK_BYTES, rendered in slices. */
  async *jsonChunks(): AsyncGenerator<string> {
    const slicer = new Slicer(CHECK_EVERY);
    let parts: string[] = ['['];
    let size = 1;
    for (let i = 0; i < this.records.length; i++) {
      const text = this.recordJson(this.records[i]!);
      parts.push(i === 0 ? text : ',' + text);
      size += text.length + 1;
      if (size >= CHUNK_BYTES) {
        yield parts.join('');
        parts = [];
        size = 0;
      }
      if (slicer.counted()) await slicer.pause();
    }
    parts.push(']');
    yield parts.join('');
  }

  /** The MessagePack in chunks of about CHUNK_BYTES, rendered in slices. */
  async *msgpackChunks(): AsyncGenerator<Buffer> {
    const slicer = new Slicer(CHECK_EVERY);
    let parts: Buffer[] = [arrayHeader(this.records.length)];
    let size = parts[0]!.length;
    for (const record of this.records) {
      const packed = this.recordMsgpack(record);
      parts.push(packed);
      size += packed.length;
      if (size >= CHUNK_BYTES) {
        yield Buffer.concat(parts, size);
        parts = [];
        size = 0;
      }
      if (slicer.counted()) await slicer.pause();
    }
    if (parts.length > 0) yield Buffer.concat(parts, size);
  }

  /**
   * Rendered straight from the stored fields when it can be (top-level
   * scalars), never through the answers remembered for point reads
   * (rendered-records.ts): a list would only churn them.
   */
  private recordJson(record: Fields): string {
    return recordJson(record, { typed: this.typed }) ?? toJson(recordToWire(record, { typed: this.typed }));
  }

  private recordMsgpack(record: Fields): Buffer {
    return recordMsgpack(record, { typed: this.typed }) ?? packr.pack(recordToWire(record, { typed: this.typed }));
  }
}

/** A MessagePack array header for `count` items. */
function arrayHeader(count: number): Buffer {
  if (count < 16) return Buffer.from([0x90 | count]);
  if (count < 0x10000) {
    const header = Buffer.allocUnsafe(3);
    header[0] = 0xdc;
    header.writeUInt16BE(count, 1);
    return header;
  }
  const header = Buffer.allocUnsafe(5);
  header[0] = 0xdd;
  header.writeUInt32BE(count, 1);
  return header;
}
