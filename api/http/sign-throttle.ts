// The signing throttle, charged by the route guard for routes of rate-limit class `sign`, before
// the signing statement runs. A signature spends from three token buckets, each shared by every API
// process (rate-limit.ts), and is refused with 429 and Retry-After when any one is empty:
// - the client address (RALLY_SIGN_LIMIT_PER_HOUR; an IPv6 address by its /64),
// - its network block, the /24 of an IPv4 address or the /64 of an IPv6 one
//   (RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR): many addresses of one block are one signer farm or one NAT,
// - the signer's email domain (RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR), except the open mail providers
//   anyone can sign up at (RALLY_SIGN_LIMIT_OPEN_DOMAINS): accounts made in bulk on a domain of one's own.
import type { DatabasePool } from 'slonik';
import { createSignerDomains, networkBlockOf } from '../../core/signatures/throttle-subjects.ts';
import type { Logger } from '../../platform/logger.ts';
import { metrics } from '../../platform/metrics.ts';
import { RallyError } from './problem.ts';
import { addressBucketKey, createRateLimiter, type RateLimiter } from './rate-limit.ts';

export type SignThrottleLimits = { perAddressPerHour: number; perBlockPerHour: number; perDomainPerHour: number; openDomains: readonly string[] };

export type SignThrottle = {
  /** Spends one signature of the caller's address, block and domain; throws the 429 problem when one is used up. */
  charge(caller: { clientIp: string; userId: string | undefined }): Promise<void>;
  stop(): void;
};

const perHour = (db: DatabasePool, log: Logger, count: number) => createRateLimiter({ db, rps: count / 3600, burst: count, log });

function spend(limiter: RateLimiter, key: string, detail: string, code: string) {
  const decision = limiter.take(key);
  if (decision.allowed) return;
  metrics.rateLimitRejections.inc({ limit: code });
  throw new RallyError('rate-limited', detail, { code, headers: { 'Retry-After': String(decision.retryAfterSeconds) } });
}

export function createSignThrottle(deps: { db: DatabasePool; limits: SignThrottleLimits; log: Logger }): SignThrottle {
  const address = perHour(deps.db, deps.log, deps.limits.perAddressPerHour);
  const block = perHour(deps.db, deps.log, deps.limits.perBlockPerHour);
  const domain = perHour(deps.db, deps.log, deps.limits.perDomainPerHour);
  const openDomains = new Set(deps.limits.openDomains);
  const domains = createSignerDomains(deps.db);

  return {
    async charge({ clientIp, userId }) {
      spend(address, `sign:${addressBucketKey(clientIp)}`, 'Too many signatures from this address; try again later.', 'sign_limit');
      const network = networkBlockOf(clientIp);
      if (network) spend(block, `sign-block:${network}`, 'Too many signatures from this network; try again later.', 'sign_block_limit');
      const mailDomain = userId ? await domains.domainOf(userId) : null;
      if (mailDomain && !openDomains.has(mailDomain)) {
        spend(domain, `sign-domain:${mailDomain}`, 'Too many signatures from accounts of this email domain; try again later.', 'sign_domain_limit');
      }
    },
    stop() {
      address.stop();
      block.stop();
      domain.stop();
    },
  };
}
