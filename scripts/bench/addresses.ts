// Client addresses for load from many places: slots of 127.0.0.0/8 (all of which Linux routes to lo, so a socket can be bound to any of them), laid out so that
// consecutive slots fall in different /24 network blocks, as the people of a viral spike do, and each phase of a run takes slots no earlier phase used: the
// API's per-address limits (RALLY_SIGN_LIMIT_PER_HOUR) stay production's.

const BLOCKS = 65_536; // the /24s of 127.0.0.0/8
const HOSTS = 254; // .1 to .254 in each
export const SLOTS = BLOCKS * HOSTS;

/** Slot `slot` (mod SLOTS): block slot % 65,536, host 1 + slot ÷ 65,536. */
export function loopbackAddress(slot: number): string {
  const wrapped = ((slot % SLOTS) + SLOTS) % SLOTS;
  const block = wrapped % BLOCKS;
  return `127.${block >> 8}.${block & 255}.${1 + Math.floor(wrapped / BLOCKS)}`;
}

/**
 * Hands out runs of `size` fresh slots, starting at a random place so that runs of the bench within
 * the hour a limit remembers do not reuse each other's addresses.
 */
export function createAddressPlan(size: number, random: () => number = Math.random): { next(): number } {
  let slot = Math.floor(random() * (SLOTS / size)) * size;
  return {
    next() {
      const first = slot;
      slot = (slot + size) % SLOTS;
      return first;
    },
  };
}
