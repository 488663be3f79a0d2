// A run's curves as a TensorBoard event file, so `tensorboard --logdir runs/` overlays the lab's runs
// beside CleanRL's, veRL's and TRL's: one scalar per metric per step, and the run's config as text.
// The CLI writes it into every run folder and the page's Runs view downloads it. Pure: no DOM, no tfjs,
// no Node modules, so both can use it.
//
// Hand-written rather than a library: no npm package writes TensorBoard events without pulling in
// TensorFlow or protobufjs, and the format is small. A file is a sequence of TFRecords
//   u64 LE length · u32 LE masked CRC-32C of those 8 bytes · data · u32 LE masked CRC-32C of data
// whose data is one `Event` protobuf each (tensorflow/core/util/event.proto, summary.proto):
//   Event   { double wall_time = 1; int64 step = 2; string file_version = 3; Summary summary = 5; }
//   Summary { repeated Value value = 1; }
//   Value   { string tag = 1; float simple_value = 2; TensorProto tensor = 8; SummaryMetadata metadata = 9; }
// A text is a rank-0 DT_STRING tensor under the `text` plugin, which is how TensorBoard's text plugin reads it.

/** the event file's name: TensorBoard reads any file whose name holds `tfevents` */
export const TENSORBOARD_FILE = 'events.out.tfevents.star-lab';

export interface ScalarPoint {
  tag: string;
  step: number;
  value: number;
  /** seconds since the Unix epoch */
  wallTime: number;
}

export interface TextEntry {
  tag: string;
  text: string;
  step: number;
  wallTime: number;
}

const CRC32C_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32C (Castagnoli), the checksum TFRecord uses */
export function crc32c(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC32C_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** TFRecord's masked CRC: a checksum stored next to data that itself holds checksums stays distinguishable */
export function maskedCrc32c(bytes: Uint8Array): number {
  const c = crc32c(bytes);
  return ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

/** a protobuf message being written: fields appended in order */
class Proto {
  private readonly parts: number[] = [];

  private varint(v: number | bigint): void {
    let x = BigInt.asUintN(64, BigInt(v));
    while (x >= 0x80n) {
      this.parts.push(Number(x & 0x7fn) | 0x80);
      x >>= 7n;
    }
    this.parts.push(Number(x));
  }

  private key(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  int64(field: number, v: number): this {
    this.key(field, 0);
    this.varint(BigInt(Math.trunc(v)));
    return this;
  }

  double(field: number, v: number): this {
    this.key(field, 1);
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, v, true);
    this.parts.push(...b);
    return this;
  }

  float(field: number, v: number): this {
    this.key(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    this.parts.push(...b);
    return this;
  }

  bytes(field: number, v: Uint8Array): this {
    this.key(field, 2);
    this.varint(v.length);
    for (const x of v) this.parts.push(x);
    return this;
  }

  string(field: number, v: string): this {
    return this.bytes(field, new TextEncoder().encode(v));
  }

  message(field: number, m: Proto): this {
    return this.bytes(field, m.done());
  }

  done(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

const DT_STRING = 7;

/** one TFRecord around `data` */
function record(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(16 + data.length);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(data.length), true);
  view.setUint32(8, maskedCrc32c(out.subarray(0, 8)), true);
  out.set(data, 12);
  view.setUint32(12 + data.length, maskedCrc32c(data), true);
  return out;
}

function event(wallTime: number, step: number, value: Proto): Uint8Array {
  return new Proto().double(1, wallTime).int64(2, step).message(5, new Proto().message(1, value)).done();
}

/** a whole event file: the version record, then the texts, then every scalar in step order (non-finite values
 *  are left out: a metric a step did not measure is no point of its curve) */
export function tensorboardEventFile(
  scalars: readonly ScalarPoint[],
  texts: readonly TextEntry[],
): Uint8Array<ArrayBuffer> {
  const first = Math.min(...scalars.map((s) => s.wallTime), ...texts.map((t) => t.wallTime), Date.now() / 1000);
  const records = [record(new Proto().double(1, first).string(3, 'brain.Event:2').done())];
  for (const t of texts) {
    const metadata = new Proto().message(1, new Proto().string(1, 'text'));
    const tensor = new Proto().int64(1, DT_STRING).message(2, new Proto()).string(8, t.text);
    const value = new Proto().string(1, t.tag).message(8, tensor).message(9, metadata);
    records.push(record(event(t.wallTime, t.step, value)));
  }
  const points = scalars.filter((s) => Number.isFinite(s.value)).sort((a, b) => a.step - b.step);
  for (const s of points)
    records.push(record(event(s.wallTime, s.step, new Proto().string(1, s.tag).float(2, s.value))));
  const out = new Uint8Array(records.reduce((n, r) => n + r.length, 0));
  let at = 0;
  for (const r of records) {
    out.set(r, at);
    at += r.length;
  }
  return out;
}

/** a run's metric lines (each a step and its numeric metrics) as scalars: every numeric field but `step` is one
 *  tag. `wallTimeOf` gives a line's time in seconds since the epoch. */
export function scalarsFromMetricLines(
  lines: readonly Readonly<Record<string, unknown>>[],
  wallTimeOf: (line: Readonly<Record<string, unknown>>, index: number) => number,
): ScalarPoint[] {
  return lines.flatMap((line, i) => {
    const step = line.step;
    if (typeof step !== 'number') return [];
    const wallTime = wallTimeOf(line, i);
    return Object.entries(line).flatMap(([tag, value]) =>
      tag !== 'step' && typeof value === 'number' ? [{ tag, step, value, wallTime }] : [],
    );
  });
}

/** the config as TensorBoard's text plugin shows it (Markdown): a heading line, then one row per setting */
export function configMarkdown(heading: string, config: Readonly<Record<string, unknown>>): string {
  const rows = Object.entries(config).map(([k, v]) => `| ${k} | ${Array.isArray(v) ? v.join(':') : String(v)} |`);
  return `${heading}\n\n| setting | value |\n|---|---|\n${rows.join('\n')}`;
}

/** a run the page stored, as an event file: every metric of every point at its time (points record ms since the
 *  run's creation), and the config as text */
export function storedRunEventFile(
  run: { id: string; createdAt: number; config: Readonly<Record<string, unknown>> },
  points: readonly { step: number; t: number; values: Readonly<Record<string, number>> }[],
): Uint8Array<ArrayBuffer> {
  const wall = (t: number) => (run.createdAt + t) / 1000;
  const scalars = points.flatMap((p) =>
    Object.entries(p.values).map(([tag, value]) => ({ tag, step: p.step, value, wallTime: wall(p.t) })),
  );
  return tensorboardEventFile(scalars, [
    { tag: 'config', text: configMarkdown(`run ${run.id}`, run.config), step: 0, wallTime: run.createdAt / 1000 },
  ]);
}
