// Every limit a route's rate-limit class (route.ts `rateLimit`) charges, with its key and its answer, in one place, charged by the route guard after
// authentication. Each is a token bucket shared by every API process (rate-limit.ts) answering 429 with Retry-After; why these are not rate-limiter-flexible
// limiters: docs/architecture.md, "Rate limits are hand-made buckets".
import type { DatabasePool } from 'slonik';
import type { SigningListCache } from '../../core/signatures/signing-list-cache.ts';
import { createSignerDomains, networkBlockOf } from '../../core/signatures/throttle-subjects.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { metrics } from '../../platform/metrics.ts';
import type { RallyContext } from './context.ts';
import { RallyError } from './problem.ts';
import { joinRateLimitPeers } from './rate-limit-peers.ts';
import { addressBucketKey, createRateLimiter, startRateLimitSync, userBucketKey, type RateLimiter } from './rate-limit.ts';
import type { RateLimitClass } from './route.ts';

const EXPORTS_PER_MINUTE = 10;

export type RouteLimits = {
  /** Charges the caller's general bucket and describes it in X-RateLimit-* headers; nothing when rate limiting is off. */
  chargeGeneral(ctx: RallyContext): void;
  /** Charges what a route of `rateClass` costs: the general bucket, then the class's own limits. */
  chargeClass(ctx: RallyContext, rateClass: RateLimitClass): Promise<void>;
  /**
   * The signing limits for a guest's form (site/sign/guest-sign-routes.ts): address, block, and the
   * domain of the address typed in. A form past a threshold is taken (its mailbox is proven by the
   * link); false when the lists block the signer, whose form is then silently not mailed.
   */
  chargeGuestSignature(ctx: RallyContext, email: string): boolean;
  /** Writes the spends the buckets kept to themselves, so the other processes count them. */
  stop(): Promise<void>;
};

type Refusal = { detail: string; code: string };

/** The thresholds a signature passed, as signatures.flags names them. */
export type SigningFlag = 'network_block' | 'email_domain';

const CEILING_REFUSAL: Refusal = { detail: 'Far too many signatures from this network or email domain right now; try again later.', code: 'signing_limit' };

function spend(limiter: RateLimiter, key: string, refusal: Refusal): void {
  const decision = limiter.take(key);
  if (decision.allowed) return;
  metrics.rateLimitRejections.inc({ limit: refusal.code });
  throw new RallyError('rate-limited', refusal.detail, { code: refusal.code, headers: { 'Retry-After': String(decision.retryAfterSeconds) } });
}

function callerBucketKey(ctx: RallyContext): string {
  const principal = ctx.state.principal;
  if (!principal) return addressBucketKey(ctx.state.clientIp);
  return principal.apiKeyId ? `key:${principal.apiKeyId}` : userBucketKey(principal.userId);
}

/** Reports and exports are counted per person, whichever of their credentials they use. */
const personBucketKey = (ctx: RallyContext) => (ctx.state.principal ? userBucketKey(ctx.state.principal.userId) : addressBucketKey(ctx.state.clientIp));

// Every class but `none`: the caller's general bucket (RALLY_RATE_LIMIT_RPS/BURST), the verified credential's,
// else the client address's, described in X-RateLimit-* headers on every answer. `sign`: the signing throttle
// (issues 11 and 44): the spec's hourly limit per client address (RALLY_SIGN_LIMIT_PER_HOUR; an IPv6 address by
// its /64) refuses; the thresholds per network block, the /24 of an IPv4 address or the /64 of an IPv6 one
// (RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR), and per email domain of the signer
// (RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR), except the open mail providers anyone can sign up at
// (RALLY_SIGN_LIMIT_OPEN_DOMAINS), only flag: a crowd behind one carrier NAT or at one university is people, so
// the signature is counted and flagged for review (ctx.state.signingFlags). Only their hard ceilings
// (RALLY_SIGN_CEILING_*) refuse. The administrators' lists (core/signatures/signing-lists.ts) block a signer
// (403), or exempt them. `report`: RALLY_REPORT_LIMIT_PER_HOUR per user; `export`: the spec's 10 a minute per
// user.
export async function createRouteLimits(deps: {
  db: DatabasePool;
  log: Logger;
  config: Pick<Config, 'rateLimit' | 'signingThrottle' | 'moderation'>;
  lists?: SigningListCache;
}): Promise<RouteLimits> {
  const { rateLimit, signingThrottle, moderation } = deps.config;
  const peers = await joinRateLimitPeers(deps.db);
  const bucket = (rps: number, burst: number) => createRateLimiter({ db: deps.db, peers, rps, burst });
  const perHour = (count: number) => bucket(count / 3600, count);
  const general = rateLimit.enabled ? bucket(rateLimit.rps, rateLimit.burst) : undefined;
  const sign = {
    address: perHour(rateLimit.signPerHour),
    block: perHour(signingThrottle.perBlockPerHour),
    domain: perHour(signingThrottle.perDomainPerHour),
    blockCeiling: signingThrottle.blockCeilingPerHour > 0 ? perHour(signingThrottle.blockCeilingPerHour) : undefined,
    domainCeiling: signingThrottle.domainCeilingPerHour > 0 ? perHour(signingThrottle.domainCeilingPerHour) : undefined,
  };
  const report = perHour(moderation.reportsPerHour);
  const exports = bucket(EXPORTS_PER_MINUTE / 60, EXPORTS_PER_MINUTE);
  const limiters = [general, ...Object.values(sign), report, exports].filter((limiter) => limiter !== undefined);
  const syncing = startRateLimitSync({ peers, limiters, log: deps.log });
  const openDomains = new Set(signingThrottle.openDomains);
  const domains = createSignerDomains(deps.db);

  function chargeGeneral(ctx: RallyContext): void {
    if (!general) return;
    const decision = general.take(callerBucketKey(ctx));
    ctx.set('X-RateLimit-Limit', String(decision.limit));
    ctx.set('X-RateLimit-Remaining', String(decision.remaining));
    ctx.set('X-RateLimit-Reset', String(decision.resetAt));
    if (!decision.allowed) {
      metrics.rateLimitRejections.inc({ limit: 'general' });
      throw new RallyError('rate-limited', `Too many requests: at most ${general.rps} per second with bursts of ${general.burst}.`, {
        headers: { 'Retry-After': String(decision.retryAfterSeconds) },
      });
    }
  }

  /** Spends one signature of the caller's address, block and domain, before the signing statement runs. */
  async function chargeSignature(ctx: RallyContext): Promise<void> {
    const { principal } = ctx.state;
    // Users and OAuth apps carry their domain from authentication; API keys look it up (cached).
    const mailDomain = principal?.emailDomain !== undefined ? principal.emailDomain : principal?.userId ? await domains.domainOf(principal.userId) : null;
    const flags = spendSignature(ctx, mailDomain);
    if (flags.length > 0) ctx.state.signingFlags = flags;
  }

  /** Past a threshold: ceiling first (refuses), then the threshold's own bucket (flags when empty). */
  function passes(flag: SigningFlag, threshold: RateLimiter, ceiling: RateLimiter | undefined, key: string): boolean {
    if (ceiling) spend(ceiling, `ceiling-${key}`, CEILING_REFUSAL);
    if (threshold.take(key).allowed) return false;
    metrics.signingFlags.inc({ threshold: flag });
    return true;
  }

  /** The thresholds this signature passed; throws when the lists block the signer or a limit refuses. */
  function spendSignature(ctx: RallyContext, mailDomain: string | null): SigningFlag[] {
    const { clientIp } = ctx.state;
    const domain = mailDomain && !openDomains.has(mailDomain) ? mailDomain : null;
    const listed = deps.lists?.verdict(clientIp, mailDomain);
    if (listed?.blocked) {
      throw new RallyError('forbidden', 'Signing from this address, network or email domain is blocked on this platform.', { code: 'signing_blocked' });
    }
    if (!listed?.exemptAddressLimit) {
      spend(sign.address, `sign:${addressBucketKey(clientIp)}`, { detail: 'Too many signatures from this address; try again later.', code: 'sign_limit' });
    }
    const flags: SigningFlag[] = [];
    const network = networkBlockOf(clientIp);
    if (network && !listed?.networkAllowed && passes('network_block', sign.block, sign.blockCeiling, `sign-block:${network}`)) flags.push('network_block');
    if (domain && !listed?.domainAllowed && passes('email_domain', sign.domain, sign.domainCeiling, `sign-domain:${domain}`)) flags.push('email_domain');
    return flags;
  }

  return {
    chargeGeneral,
    chargeGuestSignature(ctx, email) {
      // The domain as rally_email_key has it: lower-case, after the last @.
      try {
        spendSignature(ctx, email.slice(email.lastIndexOf('@') + 1).toLowerCase() || null);
        return true;
      } catch (error) {
        if (error instanceof RallyError && error.code === 'signing_blocked') return false;
        throw error;
      }
    },
    async chargeClass(ctx, rateClass) {
      if (rateClass === 'none') return;
      chargeGeneral(ctx);
      if (rateClass === 'sign') await chargeSignature(ctx);
      else if (rateClass === 'report')
        spend(report, `report:${personBucketKey(ctx)}`, { detail: 'You have filed too many reports; try again later.', code: 'report_limit' });
      else if (rateClass === 'export')
        spend(exports, `export:${personBucketKey(ctx)}`, {
          detail: `At most ${EXPORTS_PER_MINUTE} exports per minute; wait before the next one.`,
          code: 'export_limit',
        });
    },
    stop: () => syncing.stop(),
  };
}
