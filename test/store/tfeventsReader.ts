// An event-file reader written apart from the writer (src/store/tensorboardEvents.ts) and sharing no code with
// it: the TFRecord framing with its masked CRC-32C checked bit by bit, and the Event / Summary protobufs decoded
// field by field, as TensorBoard reads them. A writer that got the format wrong fails here, not in TensorBoard.

/** CRC-32C computed bitwise from the polynomial (the writer uses a table) */
function crc32cBitwise(bytes: Uint8Array): number {
  let crc = ~0 >>> 0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = (crc >>> 1) ^ (0x82f63b78 & -(crc & 1));
    crc >>>= 0;
  }
  return ~crc >>> 0;
}

export function maskedCrc(bytes: Uint8Array): number {
  const c = crc32cBitwise(bytes);
  const rotated = ((c >>> 15) | (c << 17)) >>> 0;
  return (rotated + 0xa282ead8) % 0x100000000;
}

export { crc32cBitwise };

type Field = { no: number; wire: number; int?: bigint; bytes?: Uint8Array; f64?: number; f32?: number };

function fields(buf: Uint8Array): Field[] {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const out: Field[] = [];
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[i++];
      if (b === undefined) throw new Error('varint runs past the message');
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const no = key >> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ no, wire, int: varint() });
    else if (wire === 1) {
      out.push({ no, wire, f64: view.getFloat64(i, true) });
      i += 8;
    } else if (wire === 5) {
      out.push({ no, wire, f32: view.getFloat32(i, true) });
      i += 4;
    } else if (wire === 2) {
      const n = Number(varint());
      out.push({ no, wire, bytes: buf.subarray(i, i + n) });
      i += n;
    } else throw new Error(`wire type ${wire} is not one an Event uses`);
  }
  if (i !== buf.length) throw new Error('message runs past its end');
  return out;
}

export interface DecodedEvent {
  wallTime: number;
  step: number;
  fileVersion?: string;
  values: { tag: string; simpleValue?: number; text?: string; plugin?: string }[];
}

const utf8 = (b: Uint8Array | undefined) => new TextDecoder().decode(b ?? new Uint8Array());

/** every record of an event file, each checked against its two masked CRC-32Cs, decoded as an Event */
export function readEventFile(file: Uint8Array): DecodedEvent[] {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const events: DecodedEvent[] = [];
  let at = 0;
  while (at < file.length) {
    if (at + 12 > file.length) throw new Error(`record header cut short at byte ${at}`);
    const length = Number(view.getBigUint64(at, true));
    if (view.getUint32(at + 8, true) !== maskedCrc(file.subarray(at, at + 8))) throw new Error(`length CRC wrong at byte ${at}`);
    const data = file.subarray(at + 12, at + 12 + length);
    if (data.length !== length || at + 16 + length > file.length) throw new Error(`record cut short at byte ${at}`);
    if (view.getUint32(at + 12 + length, true) !== maskedCrc(data)) throw new Error(`data CRC wrong at byte ${at}`);
    at += 16 + length;
    const e: DecodedEvent = { wallTime: NaN, step: 0, values: [] };
    for (const f of fields(data)) {
      if (f.no === 1 && f.wire === 1) e.wallTime = f.f64!;
      else if (f.no === 2 && f.wire === 0) e.step = Number(BigInt.asIntN(64, f.int!));
      else if (f.no === 3 && f.wire === 2) e.fileVersion = utf8(f.bytes);
      else if (f.no === 5 && f.wire === 2) {
        for (const v of fields(f.bytes!).filter((x) => x.no === 1)) {
          const value: DecodedEvent['values'][number] = { tag: '' };
          for (const g of fields(v.bytes!)) {
            if (g.no === 1) value.tag = utf8(g.bytes);
            else if (g.no === 2 && g.wire === 5) value.simpleValue = g.f32;
            else if (g.no === 8) {
              const tensor = fields(g.bytes!);
              if (tensor.find((t) => t.no === 1)?.int !== 7n) throw new Error('a text tensor is not DT_STRING');
              value.text = utf8(tensor.find((t) => t.no === 8)?.bytes);
            } else if (g.no === 9) {
              const pluginData = fields(g.bytes!).find((t) => t.no === 1);
              value.plugin = utf8(fields(pluginData!.bytes!).find((t) => t.no === 1)?.bytes);
            }
          }
          e.values.push(value);
        }
      }
    }
    events.push(e);
  }
  return events;
}
