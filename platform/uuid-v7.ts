// Time-ordered ids (UUID version 7, RFC 9562 §5.7) made in the process: a row keyed by one lands at the right-hand edge of its B-tree, where a random (version
// 4) key dirties a random page per insert and costs a full-page image in the WAL after each checkpoint. No dependency: 48 bits of Unix time in milliseconds,
// the version and variant bits, and 74 random bits from node:crypto.
import { randomFillSync } from 'node:crypto';

// Random bytes are drawn a pool at a time: one call to the generator per 256 ids, not per id.
const POOL_IDS = 256;
const RANDOM_BYTES = 10;
const pool = Buffer.alloc(POOL_IDS * RANDOM_BYTES);
let next = POOL_IDS;

/** A UUIDv7 for `now` (milliseconds since the epoch), as 36 lower-case characters. */
export function uuidV7(now: number = Date.now()): string {
  if (next === POOL_IDS) {
    randomFillSync(pool);
    next = 0;
  }
  const random = pool.subarray(next * RANDOM_BYTES, (next + 1) * RANDOM_BYTES);
  next += 1;
  const bytes = Buffer.allocUnsafe(16);
  bytes.writeUIntBE(now, 0, 6);
  random.copy(bytes, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f); // version 7 in the high nibble of octet 6
  bytes[8] = 0x80 | (bytes[8]! & 0x3f); // variant 10 in the two high bits of octet 8
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
