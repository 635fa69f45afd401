// Every limit a route's rate-limit class (route.ts `rateLimit`) charges, with its key and its
// answer, in one place. The route guard charges them after authentication (route-guard.ts):
// - every class but `none`: the caller's general bucket (RALLY_RATE_LIMIT_RPS/BURST), the verified
//   credential's, else the client address's, described in X-RateLimit-* headers on every answer;
// - `sign`: the signing throttle (issue 11), three hourly buckets per client address
//   (RALLY_SIGN_LIMIT_PER_HOUR; an IPv6 address by its /64), per network block, the /24 of an IPv4
//   address or the /64 of an IPv6 one (RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR: many addresses of one
//   block are one signer farm or one NAT), and per email domain of the signer
//   (RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR), except the open mail providers anyone can sign up at
//   (RALLY_SIGN_LIMIT_OPEN_DOMAINS): accounts made in bulk on a domain of one's own;
// - `report`: RALLY_REPORT_LIMIT_PER_HOUR per user; `export`: the spec's 10 a minute per user.
// Each is a token bucket shared by every API process (rate-limit.ts) and answers 429 with
// Retry-After. Why these are not rate-limiter-flexible limiters: docs/architecture.md, "Rate limits are hand-made buckets".
import type { DatabasePool } from 'slonik';
import { createSignerDomains, networkBlockOf } from '../../core/signatures/throttle-subjects.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { metrics } from '../../platform/metrics.ts';
import type { RallyContext } from './context.ts';
import { RallyError } from './problem.ts';
import { addressBucketKey, createRateLimiter, type RateLimiter } from './rate-limit.ts';
import type { RateLimitClass } from './route.ts';

const EXPORTS_PER_MINUTE = 10;

export type RouteLimits = {
  /** Charges the caller's general bucket and describes it in X-RateLimit-* headers; nothing when rate limiting is off. */
  chargeGeneral(ctx: RallyContext): void;
  /** Charges what a route of `rateClass` costs: the general bucket, then the class's own limits. */
  chargeClass(ctx: RallyContext, rateClass: RateLimitClass): Promise<void>;
  /** The signing limits for a guest's form (api/pages/guest-sign-routes.ts): address, block, and the domain of the address typed in. */
  chargeGuestSignature(ctx: RallyContext, email: string): void;
  stop(): void;
};

type Refusal = { detail: string; code: string };

function spend(limiter: RateLimiter, key: string, refusal: Refusal): void {
  const decision = limiter.take(key);
  if (decision.allowed) return;
  metrics.rateLimitRejections.inc({ limit: refusal.code });
  throw new RallyError('rate-limited', refusal.detail, { code: refusal.code, headers: { 'Retry-After': String(decision.retryAfterSeconds) } });
}

function callerBucketKey(ctx: RallyContext): string {
  const principal = ctx.state.principal;
  if (!principal) return addressBucketKey(ctx.state.clientIp);
  return principal.apiKeyId ? `key:${principal.apiKeyId}` : `user:${principal.userId}`;
}

/** Reports and exports are counted per person, whichever of their credentials they use. */
const personBucketKey = (ctx: RallyContext) => (ctx.state.principal ? `user:${ctx.state.principal.userId}` : addressBucketKey(ctx.state.clientIp));

export function createRouteLimits(deps: { db: DatabasePool; log: Logger; config: Pick<Config, 'rateLimit' | 'signingThrottle' | 'moderation'> }): RouteLimits {
  const { rateLimit, signingThrottle, moderation } = deps.config;
  const bucket = (rps: number, burst: number) => createRateLimiter({ db: deps.db, rps, burst, log: deps.log });
  const perHour = (count: number) => bucket(count / 3600, count);
  const general = rateLimit.enabled ? bucket(rateLimit.rps, rateLimit.burst) : undefined;
  const sign = { address: perHour(rateLimit.signPerHour), block: perHour(signingThrottle.perBlockPerHour), domain: perHour(signingThrottle.perDomainPerHour) };
  const report = perHour(moderation.reportsPerHour);
  const exports = bucket(EXPORTS_PER_MINUTE / 60, EXPORTS_PER_MINUTE);
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
    spendSignature(ctx, principal?.emailDomain !== undefined ? principal.emailDomain : principal?.userId ? await domains.domainOf(principal.userId) : null);
  }

  function spendSignature(ctx: RallyContext, mailDomain: string | null): void {
    const { clientIp } = ctx.state;
    spend(sign.address, `sign:${addressBucketKey(clientIp)}`, { detail: 'Too many signatures from this address; try again later.', code: 'sign_limit' });
    const network = networkBlockOf(clientIp);
    if (network) spend(sign.block, `sign-block:${network}`, { detail: 'Too many signatures from this network; try again later.', code: 'sign_block_limit' });
    if (mailDomain && !openDomains.has(mailDomain)) {
      spend(sign.domain, `sign-domain:${mailDomain}`, {
        detail: 'Too many signatures from accounts of this email domain; try again later.',
        code: 'sign_domain_limit',
      });
    }
  }

  return {
    chargeGeneral,
    chargeGuestSignature(ctx, email) {
      // The domain as rally_email_key has it: lower-case, after the last @.
      spendSignature(ctx, email.slice(email.lastIndexOf('@') + 1).toLowerCase() || null);
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
    stop() {
      for (const limiter of [general, sign.address, sign.block, sign.domain, report, exports]) limiter?.stop();
    },
  };
}
