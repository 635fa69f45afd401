// A MaxMind DB (.mmdb) reader that looks addresses up in the file itself instead of a copy of it in
// memory: the search tree and the data section are read in 4 KiB pages through positional reads,
// and only the most recently used pages are kept (by default 256 of them, 1 MiB per file). The
// operating system's page cache holds the rest of the file, shared by every process and given back
// under memory pressure, where `mmdb-lib`'s Reader needs the whole file (the GeoLite2 City files
// are 28 and 17 MB) in a Buffer of the process. Decoding follows the MaxMind DB format 2.0 spec
// (https://maxmind.github.io/MaxMind-DB/) and gives the same values as `mmdb-lib`'s Reader, which
// test/core/signatures/mmdb-file.unit.test.ts checks address by address; the metadata and address
// parsing are mmdb-lib's own.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import ipModule from 'mmdb-lib/lib/ip.js';
import { parseMetadata, type Metadata } from 'mmdb-lib/lib/metadata.js';
import type { LRUCache } from 'lru-cache';
import { createBoundedLru } from '../../platform/bounded-lru.ts';

const PAGE_BITS = 12;
const PAGE_SIZE = 1 << PAGE_BITS;
/** The metadata section is at most 128 KiB from the end of the file (spec: "Database Metadata"). */
const METADATA_MAX_BYTES = 128 * 1024;
const DATA_SECTION_SEPARATOR_BYTES = 16;
const POINTER_BIAS = [0, 2048, 526_336, 0] as const;
// A CommonJS module whose exports.default Node hands over as the default import's `default`.
type IpHelpers = { parse(address: string): number[]; bitAt(raw: number[], index: number): number };
const ip = ((ipModule as unknown as { default?: IpHelpers }).default ?? ipModule) as IpHelpers;

/** Decoded values by their offset in the file: records share strings and maps through pointers. */
export type DecodedCache = { get(offset: number): unknown; set(offset: number, value: unknown): unknown };

export type MmdbFileOptions = Readonly<{ cachedPages?: number; cache?: DecodedCache }>;

type Cursor = { value: unknown; offset: number };

export class MmdbFile {
  readonly metadata: Metadata;
  private readonly fd: number;
  private readonly size: number;
  private readonly pages: LRUCache<number, Buffer>;
  private readonly cache: DecodedCache | undefined;
  private readonly dataStart: number;
  private readonly ipv4StartNode: number;
  private readonly readLeft: (offset: number) => number;
  private readonly readRight: (offset: number) => number;

  constructor(path: string, options: MmdbFileOptions = {}) {
    this.fd = openSync(path, 'r');
    try {
      this.size = fstatSync(this.fd).size;
      this.pages = createBoundedLru<number, Buffer>(Math.max(1, options.cachedPages ?? 256));
      this.cache = options.cache;
      const tailLength = Math.min(this.size, METADATA_MAX_BYTES);
      this.metadata = parseMetadata(this.read(this.size - tailLength, tailLength));
    } catch (error) {
      closeSync(this.fd);
      throw error;
    }
    this.dataStart = this.metadata.searchTreeSize + DATA_SECTION_SEPARATOR_BYTES;
    switch (this.metadata.recordSize) {
      case 24:
        this.readLeft = (offset) => this.uint(offset, 3);
        this.readRight = (offset) => this.uint(offset + 3, 3);
        break;
      case 28:
        this.readLeft = (offset) => ((this.byte(offset + 3) & 0xf0) << 20) | this.uint(offset, 3);
        this.readRight = (offset) => ((this.byte(offset + 3) & 0x0f) << 24) | this.uint(offset + 4, 3);
        break;
      default:
        this.readLeft = (offset) => this.uint(offset, 4);
        this.readRight = (offset) => this.uint(offset + 4, 4);
    }
    this.ipv4StartNode = this.findIpv4Start();
  }

  /** The record of the network holding `address` (IPv4 or IPv6 text), or null when there is none. */
  get(address: string): unknown {
    const raw = ip.parse(address);
    const { nodeCount, nodeByteSize } = this.metadata;
    const bits = raw.length * 8;
    let node = raw.length === 4 ? this.ipv4StartNode : 0;
    for (let depth = 0; depth < bits && node < nodeCount; depth++) {
      const offset = node * nodeByteSize;
      node = ip.bitAt(raw, depth) ? this.readRight(offset) : this.readLeft(offset);
    }
    if (node <= nodeCount) return null;
    return this.decodeCached(node - nodeCount + this.metadata.searchTreeSize);
  }

  close(): void {
    this.pages.clear();
    closeSync(this.fd);
  }

  // IPv4 addresses in an IPv6 tree sit under 96 zero bits (::a.b.c.d).
  private findIpv4Start(): number {
    if (this.metadata.ipVersion === 4) return 0;
    let node = 0;
    for (let depth = 0; depth < 96 && node < this.metadata.nodeCount; depth++) node = this.readLeft(node * this.metadata.nodeByteSize);
    return node;
  }

  private page(number: number): Buffer {
    const cached = this.pages.get(number);
    if (cached) return cached;
    const start = number * PAGE_SIZE;
    const page = this.read(start, Math.min(PAGE_SIZE, this.size - start));
    this.pages.set(number, page);
    return page;
  }

  private read(position: number, length: number): Buffer {
    if (position < 0 || length < 0 || position + length > this.size) throw new Error(`mmdb: read past the end of the file at ${position}`);
    const buffer = Buffer.allocUnsafeSlow(length);
    let done = 0;
    while (done < length) {
      const count = readSync(this.fd, buffer, done, length - done, position + done);
      if (count === 0) throw new Error(`mmdb: file ended early at ${position + done}`);
      done += count;
    }
    return buffer;
  }

  private byte(offset: number): number {
    const page = this.page(offset >>> PAGE_BITS);
    const value = page[offset & (PAGE_SIZE - 1)];
    if (value === undefined) throw new Error(`mmdb: read past the end of the file at ${offset}`);
    return value;
  }

  /** `length` bytes at `offset`; a view into the page when they lie within one. */
  private bytes(offset: number, length: number): Buffer {
    const within = offset & (PAGE_SIZE - 1);
    if (within + length <= PAGE_SIZE) {
      const page = this.page(offset >>> PAGE_BITS);
      if (within + length <= page.length) return page.subarray(within, within + length);
    }
    return this.read(offset, length);
  }

  /** Big-endian unsigned integer of 0 to 4 bytes. */
  private uint(offset: number, length: number): number {
    let value = 0;
    for (let index = 0; index < length; index++) value = value * 256 + this.byte(offset + index);
    return value;
  }

  private decodeCached(offset: number): unknown {
    const cached = this.cache?.get(offset);
    if (cached !== undefined) return cached;
    const { value } = this.decode(offset);
    this.cache?.set(offset, value);
    return value;
  }

  private decode(start: number): Cursor {
    let offset = start;
    const control = this.byte(offset++);
    let type = control >> 5;
    if (type === 1) {
      const sizeBits = (control >> 3) & 3;
      const length = sizeBits + 1;
      const packed = sizeBits === 3 ? this.uint(offset, 4) : (control & 7) * 2 ** (8 * length) + this.uint(offset, length);
      return { value: this.decodeCached(this.dataStart + packed + POINTER_BIAS[sizeBits]!), offset: offset + length };
    }
    if (type === 0) {
      type = 7 + this.byte(offset++);
      if (type < 8) throw new Error(`mmdb: invalid extended type at ${offset}`);
    }
    let size = control & 0x1f;
    if (size === 29) size = 29 + this.byte(offset++);
    else if (size === 30) { size = 285 + this.uint(offset, 2); offset += 2; }
    else if (size === 31) { size = 65_821 + this.uint(offset, 3); offset += 3; }
    switch (type) {
      case 2: return { value: this.bytes(offset, size).toString('utf8'), offset: offset + size };
      case 3: return { value: this.bytes(offset, 8).readDoubleBE(0), offset: offset + 8 };
      case 4: return { value: Buffer.from(this.bytes(offset, size)), offset: offset + size };
      case 5:
      case 6:
        if (size > 4) throw new Error(`mmdb: invalid size for an unsigned integer at ${offset}: ${size}`);
        return { value: this.uint(offset, size), offset: offset + size };
      case 7: {
        const map: Record<string, unknown> = {};
        for (let index = 0; index < size; index++) {
          const key = this.decode(offset);
          const value = this.decode(key.offset);
          map[key.value as string] = value.value;
          offset = value.offset;
        }
        return { value: map, offset };
      }
      case 8: return { value: size === 0 ? 0 : size < 4 ? this.uint(offset, size) : this.bytes(offset, 4).readInt32BE(0), offset: offset + size };
      case 9:
      case 10: {
        if (size > 16) throw new Error(`mmdb: invalid size for a big unsigned integer at ${offset}: ${size}`);
        let value = 0n;
        for (let index = 0; index < size; index++) value = (value << 8n) | BigInt(this.byte(offset + index));
        return { value, offset: offset + size };
      }
      case 11: {
        const array: unknown[] = [];
        for (let index = 0; index < size; index++) {
          const item = this.decode(offset);
          array.push(item.value);
          offset = item.offset;
        }
        return { value: array, offset };
      }
      case 14: return { value: size !== 0, offset };
      case 15: return { value: this.bytes(offset, 4).readFloatBE(0), offset: offset + 4 };
      default: throw new Error(`mmdb: unknown type ${type} at ${start}`);
    }
  }
}
