// A ZIP archive (PKWARE APPNOTE 6.3, no ZIP64) of a few files held in memory, each deflated with
// Node's zlib. Written by hand because no ZIP library is a dependency and an export needs only this:
// JSON files of one person, far below ZIP's 4 GiB limits, written once and never appended to.
import { crc32, deflateRawSync } from 'node:zlib';

export type ZipEntry = { name: string; content: Buffer };

const DEFLATE = 8;
// Bit 11: names are UTF-8.
const UTF8_NAMES = 0x0800;
const VERSION = 20;
// 1980-01-01 00:00 in MS-DOS date and time: the archive's bytes do not depend on the clock.
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

function header(signature: number, fields: [size: 2 | 4, value: number][]): Buffer {
  const buffer = Buffer.alloc(4 + fields.reduce((sum, [size]) => sum + size, 0));
  buffer.writeUInt32LE(signature, 0);
  let offset = 4;
  for (const [size, value] of fields) {
    if (size === 2) buffer.writeUInt16LE(value, offset);
    else buffer.writeUInt32LE(value, offset);
    offset += size;
  }
  return buffer;
}

/** The archive's bytes: each entry's local header and deflated data, then the central directory. */
export function zip(entries: readonly ZipEntry[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = deflateRawSync(entry.content);
    const crc = crc32(entry.content);
    const common: [2 | 4, number][] = [
      [2, UTF8_NAMES],
      [2, DEFLATE],
      [2, DOS_TIME],
      [2, DOS_DATE],
      [4, crc],
      [4, data.length],
      [4, entry.content.length],
      [2, name.length],
      [2, 0],
    ];
    const local = header(0x04034b50, [[2, VERSION], ...common]);
    parts.push(local, name, data);
    central.push(header(0x02014b50, [[2, VERSION], [2, VERSION], ...common, [2, 0], [2, 0], [2, 0], [4, 0], [4, offset]]), name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = header(0x06054b50, [
    [2, 0],
    [2, 0],
    [2, entries.length],
    [2, entries.length],
    [4, directory.length],
    [4, offset],
    [2, 0],
  ]);
  return Buffer.concat([...parts, directory, end]);
}
