// UUIDv7 (platform/uuid-v7.ts) against the layout of RFC 9562 §5.7: unix_ts_ms (48 bits), ver = 0b0111,
// rand_a (12), var = 0b10, rand_b (62); ids of later milliseconds sort after earlier ones.
import { expect } from 'chai';
import { uuidV7 } from '../../platform/uuid-v7.ts';

const bytesOf = (id: string) => Buffer.from(id.replaceAll('-', ''), 'hex');

describe('UUIDv7 (platform/uuid-v7.ts)', () => {
  it('is written as 8-4-4-4-12 lower-case hex digits', () => {
    expect(uuidV7()).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('carries the Unix time in milliseconds in its first 48 bits, big-endian', () => {
    const at = Date.UTC(2026, 10, 28, 18, 30, 0, 123);
    expect(bytesOf(uuidV7(at)).readUIntBE(0, 6)).to.equal(at);
    expect(uuidV7(0x0123_4567_89ab).slice(0, 13)).to.equal('01234567-89ab');
  });

  it('sets version 7 in the high nibble of octet 6 and variant 0b10 in the high bits of octet 8', () => {
    for (let n = 0; n < 1_000; n += 1) {
      const bytes = bytesOf(uuidV7());
      expect(bytes[6]! >> 4).to.equal(7);
      expect(bytes[8]! >> 6).to.equal(0b10);
    }
  });

  it('fills the other 74 bits at random, so ids of one millisecond differ', () => {
    const at = Date.now();
    const ids = new Set(Array.from({ length: 10_000 }, () => uuidV7(at)));
    expect(ids.size).to.equal(10_000);
    // Every one of rand_a's and rand_b's bits takes both values across the ids.
    const seen = { ones: Buffer.alloc(16), zeros: Buffer.alloc(16) };
    for (const id of ids) {
      const bytes = bytesOf(id);
      for (let i = 0; i < 16; i += 1) {
        seen.ones[i]! |= bytes[i]!;
        seen.zeros[i]! |= ~bytes[i]! & 0xff;
      }
    }
    const randomBits = (buffer: Buffer) => [buffer[6]! & 0x0f, buffer[7], buffer[8]! & 0x3f, ...buffer.subarray(9)];
    expect(randomBits(seen.ones)).to.deep.equal([0x0f, 0xff, 0x3f, ...Array(7).fill(0xff)]);
    expect(randomBits(seen.zeros)).to.deep.equal([0x0f, 0xff, 0x3f, ...Array(7).fill(0xff)]);
  });

  it('sorts, as text and as PostgreSQL compares uuids, in the order of its milliseconds', () => {
    const times = [1, 1_000, 1_700_000_000_000, 1_800_000_000_000, 2 ** 48 - 1];
    const ids = times.map((time) => uuidV7(time));
    expect([...ids].sort()).to.deep.equal(ids);
  });
});
