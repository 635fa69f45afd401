// What /v1 has deprecated, each with the day it was announced. Its answers say so (RFC 9745
// `Deprecation`, RFC 8594 `Sunset`, a `Link`), and the Sunset is always DEPRECATION_WINDOW_MONTHS
// later: the notice docs/guides/versioning.md promises, computed here and nowhere else.
import type { RallyContext } from './context.ts';

export const DEPRECATION_WINDOW_MONTHS = 12;

/** The day each deprecated thing was announced (UTC); its table in docs/guides/versioning.md follows. */
export const DEPRECATIONS = {
  apiKeyHeader: '2026-11-25',
  userPetitionsListing: '2026-11-26',
} as const;

export type Deprecated = keyof typeof DEPRECATIONS;

/** When a deprecated thing was announced, and the earliest day it may stop answering. */
export function deprecationDates(what: Deprecated): { deprecatedAt: Date; sunsetAt: Date } {
  const deprecatedAt = new Date(`${DEPRECATIONS[what]}T00:00:00Z`);
  const sunsetAt = new Date(deprecatedAt);
  sunsetAt.setUTCMonth(sunsetAt.getUTCMonth() + DEPRECATION_WINDOW_MONTHS);
  return { deprecatedAt, sunsetAt };
}

/** Marks the answer as using something deprecated; `link` names the successor or the documentation. */
export function announceDeprecation(ctx: RallyContext, what: Deprecated, link: string): void {
  const { deprecatedAt, sunsetAt } = deprecationDates(what);
  ctx.set('Deprecation', `@${deprecatedAt.getTime() / 1000}`);
  ctx.set('Sunset', sunsetAt.toUTCString());
  ctx.set('Link', link);
}
