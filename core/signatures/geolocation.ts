// Where a signature comes from, at city level only: from the client IP when the GeoLite data shipped
// in the `geoip-lite` package knows it, else from the signer's display_location matched against the
// city gazetteer of `city-timezones`. The IP itself is never stored or shown, and coordinates are
// the city's, not the person's.
import { createRequire } from 'node:module';

export type Place = { city: string | null; region: string | null; country: string | null; latitude: number | null; longitude: number | null };

const UNKNOWN: Place = { city: null, region: null, country: null, latitude: null, longitude: null };
const require = createRequire(import.meta.url);

type GeoIp = { lookup(ip: string): { city: string; region: string; country: string; ll: [number, number] } | null };
type Gazetteer = { lookupViaCity(name: string): { city: string; province: string; iso2: string; lat: number; lng: number; pop: number }[] };

// Loaded on first use: the GeoLite tables take a second and ~150 MB, which only signing needs.
let geoip: GeoIp | undefined;
let gazetteer: Gazetteer | undefined;

const round = (value: number) => Math.round(value * 100) / 100;

function fromIp(ip: string): Place | undefined {
  geoip ??= require('geoip-lite') as GeoIp;
  const found = geoip.lookup(ip.replace(/^::ffff:/, ''));
  if (!found || !found.city) return undefined;
  return { city: found.city, region: found.region || null, country: found.country || null, latitude: round(found.ll[0]), longitude: round(found.ll[1]) };
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
