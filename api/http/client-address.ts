// The client's address behind reverse proxies, read from the right of X-Forwarded-For as Express's
// `trust proxy` does: each proxy appends the address it received the request from, so only the
// entries added by proxies we trust are believed; everything left of them was written by the client.
import { BlockList, isIP } from 'node:net';
import type { TrustProxy } from '../../platform/config.ts';

// '::ffff:203.0.113.7' (an IPv4 client on a dual-stack socket) is the IPv4 address.
const normalise = (address: string) => (address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address);

function trustedProxies(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = '', prefix] = cidr.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

/** Returns a function from (socket address, X-Forwarded-For header) to the client's address. */
export function createClientAddressResolver(trust: TrustProxy): (socketAddress: string | undefined, forwardedFor: string) => string {
  const proxies = trust && 'cidrs' in trust ? trustedProxies(trust.cidrs) : undefined;
  const isTrusted = (address: string) => proxies?.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4') ?? false;

  return (socketAddress, forwardedFor) => {
    const socket = normalise(socketAddress ?? 'unknown');
    if (!trust) return socket;
    // Nearest hop first: the socket peer, then X-Forwarded-For from the right.
    const hops = [
      socket,
      ...forwardedFor
        .split(',')
        .map((entry) => normalise(entry.trim()))
        .filter(Boolean)
        .reverse(),
    ];
    let index = 0;
    for (;;) {
      const believed = 'hops' in trust ? index < trust.hops : isTrusted(hops[index]!);
      const next = hops[index + 1];
      // A proxy we trust wrote the next entry; anything that is not an address ends the walk.
      if (!believed || next === undefined || isIP(next) === 0) return hops[index]!;
      index += 1;
    }
  };
}
