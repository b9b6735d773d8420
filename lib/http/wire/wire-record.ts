/**
 * A stored record as a procedure's answer, encoded by whoever sends it: the
 * HTTP codec writes the common record's JSON text or MessagePack straight
 * from the stored fields (`recordJson`, `recordMsgpack`: no wire object in
 * between), other MessagePack answers and every
 * in-process caller take `toWire()` (Dispatcher.call unwraps it, so
 * WebSocket replies and stored callers see the plain wire object). A stored
 * function's answer, its records and statistics, is one the same way
 * (RecordsAnswer).
 */
import { recordJson, recordMsgpack, recordToWire, toJson, type Fields } from '../../engine/index.js';
import type { CallStats, StageStat } from '../../functions/index.js';
import { RecordList } from './record-list.js';
import { RenderedRecords } from './rendered-records.js';

/** Records' answers as last rendered, with typed wrappers and with bare values (the setting can change at run time). */
const json = {
  typed: new RenderedRecords((fields) => recordJson(fields, { typed: true })),
  bare: new RenderedRecords((fields) => recordJson(fields, { typed: false })),
};
const msgpack = {
  typed: new RenderedRecords((fields) => packedAnswer(recordMsgpack(fields, { typed: true }))),
  bare: new RenderedRecords((fields) => packedAnswer(recordMsgpack(fields, { typed: false }))),
};

/**
 * A record's MessagePack answer: its bytes, and the same bytes as latin1 text (one character a byte), which node's
 * server writes with the answer's head in one write. The text is made on first use and remembered with the answer,
 * so a hot record's reads convert nothing.
 */
export class PackedAnswer {
  private text: string | undefined;

  constructor(readonly bytes: Buffer) {}

  get length(): number {
    return this.bytes.length;
  }

  get latin1(): string {
    return (this.text ??= this.bytes.toString('latin1'));
  }
}

/**
 * The answer over a copy with its own memory: recordMsgpack's answer is a slice of Buffer's shared pool, which a
 * remembered answer would keep whole.
 */
function packedAnswer(packed: Buffer | undefined): PackedAnswer | undefined {
  if (packed === undefined) return undefined;
  const own = Buffer.allocUnsafeSlow(packed.length);
  packed.copy(own);
  return new PackedAnswer(own);
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

  /** Its JSON text: written directly when it can be, else the wire object's. */
  json(): string {
    return this.directJson() ?? toJson(this.toWire());
  }

  /**
   * Its MessagePack when it can be written directly (top-level scalars only), else undefined; a stored record's is
   * remembered, with its latin1 text.
   */
  directMsgpack(): Buffer | PackedAnswer | undefined {
    if (!this.stored) return recordMsgpack(this.fields, { typed: this.typed });
    return (this.typed ? msgpack.typed : msgpack.bare).answer(this.fields);
  }
}

/**
 * A stored function's records and statistics as its answer, `{records,
 * stats}`. Its JSON is written from the records' fields: one record (a
 * FindById) as a point read's answer is, remembered when the record is
 * frozen (a stored record, or one no step can change), a list as a find's,
 * and the stats member by member. JSON.stringify of the wire object took
 * about 2.7 µs of a one-record call's 26. MessagePack encoders and
 * in-process callers take toWire().
 */
export class RecordsAnswer {
  constructor(
    readonly records: readonly Fields[],
    readonly stats: CallStats,
    readonly typed: boolean,
  ) {}

  toWire(): { records: Record<string, unknown>[]; stats: CallStats } {
    return { records: this.records.map((r) => recordToWire(r, { typed: this.typed })), stats: this.stats };
  }

  json(): string {
    const records = this.records;
    const list =
      records.length === 1
        ? `[${new WireRecord(records[0]!, this.typed, Object.isFrozen(records[0])).json()}]`
        : new RecordList(records, this.typed).json();
    return `{"records":${list},"stats":${statsJson(this.stats)}}`;
  }
}

/** Every member statsJson writes: a member added to the stats types fails to compile here until it is written. */
const WRITTEN: { [K in keyof CallStats | keyof StageStat]: true } = {
  input_count: true,
  output_count: true,
  execution_time_ms: true,
  stages_executed: true,
  stage_stats: true,
  stage: true,
};
void WRITTEN;

/** JSON.stringify(stats), written directly: its counts and rounded milliseconds are integers. */
function statsJson(stats: CallStats): string {
  let stages = '';
  for (const s of stats.stage_stats) {
    stages +=
      `${stages ? ',' : ''}{"stage":${JSON.stringify(s.stage)},"input_count":${s.input_count},` +
      `"output_count":${s.output_count},"execution_time_ms":${s.execution_time_ms}}`;
  }
  return (
    `{"input_count":${stats.input_count},"output_count":${stats.output_count},` +
    `"execution_time_ms":${stats.execution_time_ms},"stages_executed":${stats.stages_executed},` +
    `"stage_stats":[${stages}]}`
  );
}

/** `value` with a WireRecord or RecordsAnswer turned into its wire object (for encoders that do not know them). */
export function unwrapRecord(value: unknown): unknown {
  return value instanceof WireRecord || value instanceof RecordsAnswer ? value.toWire() : value;
}
