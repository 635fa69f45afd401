// Keeps webhooks from becoming a way into Rally's own network (SSRF): a URL is checked when registered, and the address again at every delivery, after DNS
// resolution and right before connecting (guardedLookup), so a name that later resolves inward is still refused.
import dns, { type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

const PRIVATE_RANGES: [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
  // Ranges that carry an IPv4 address inside, private ones included, and reach it through a
  // translator or relay: NAT64 (well-known and local-use), 6to4 and the deprecated IPv4-compatible
  // form (::10.0.0.1). IPv4-mapped ones such as ::ffff:10.0.0.1 need no rule: BlockList checks them
  // against the IPv4 ranges above.
  ['64:ff9b::', 96, 'ipv6'],
  ['64:ff9b:1::', 48, 'ipv6'],
  ['2002::', 16, 'ipv6'],
  ['::', 96, 'ipv6'],
];

const privateAddresses = new BlockList();
for (const [network, prefix, family] of PRIVATE_RANGES) privateAddresses.addSubnet(network, prefix, family);

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true; // not an address at all: refuse rather than guess
  return privateAddresses.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export type UrlPolicy = { production: boolean; allowPrivate: boolean };

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

const loopbackAddresses = new BlockList();
loopbackAddresses.addSubnet('127.0.0.0', 8, 'ipv4');
loopbackAddresses.addAddress('::1', 'ipv6');
const isLoopbackAddress = (address: string) => isIP(address) !== 0 && loopbackAddresses.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
/** A receiver on this machine: what a developer runs beside `npm start`, allowed outside production. */
const isLoopbackHost = (host: string) => host === 'localhost' || host.endsWith('.localhost') || isLoopbackAddress(host);

/**
 * Why this URL may not be registered, or undefined when it may. Resolves the host name once.
 * RALLY_WEBHOOK_ALLOW_PRIVATE=true lifts the address rules for development and tests; outside production a
 * receiver on this machine (loopback) is always allowed; production always requires https.
 */
export async function refuseWebhookUrl(raw: string, policy: UrlPolicy): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  const developmentLoopback = !policy.production && isLoopbackHost(hostOf(url));
  const httpAllowed = (policy.allowPrivate || developmentLoopback) && !policy.production;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && httpAllowed)) {
    return httpAllowed ? 'must use https or http' : 'must use https';
  }
  if (url.username || url.password) return 'must not carry credentials; authenticate deliveries with the signing secret';
  if (policy.allowPrivate || developmentLoopback) return undefined;
  const host = hostOf(url);
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must not point at this machine';
  if (isIP(host)) return isPrivateAddress(host) ? 'must not point at a private, loopback or link-local address' : undefined;
  const addresses = await dns.promises.lookup(host, { all: true }).catch(() => undefined);
  if (!addresses || addresses.length === 0) return `host ${host} does not resolve`;
  return addresses.some((entry) => isPrivateAddress(entry.address)) ? `host ${host} resolves to a private address` : undefined;
}

/** Raised at delivery time; the activity turns it into a permanent failure. */
export class AddressRefusedError extends Error {
  override name = 'AddressRefusedError';
}

/** For delivery: an IP literal never goes through DNS, so it is checked before connecting. */
export function assertDeliverableHost(url: URL, allowPrivate: boolean, allowLoopback = false): void {
  const host = hostOf(url);
  if (allowLoopback && isLoopbackAddress(host)) return;
  if (!allowPrivate && isIP(host) && isPrivateAddress(host)) throw new AddressRefusedError(`${host} is a private address`);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup for undici's `connect.lookup`: resolves, then refuses private addresses (loopback ones too, unless allowed). */
export function createGuardedLookup(allowPrivate: boolean, allowLoopback = false) {
  return function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = allowPrivate
        ? undefined
        : addresses.find((entry) => isPrivateAddress(entry.address) && !(allowLoopback && isLoopbackAddress(entry.address)));
      if (refused) return callback(new AddressRefusedError(`${hostname} resolves to a private address`), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
