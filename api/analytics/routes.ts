// Per-petition analytics (its creator or a platform administrator) and public platform statistics.
// Both read rollup tables only, kept by the fold-signature-rollups schedule.
import type { DatabasePool } from 'slonik';
import type { CachedPetitionAnalytics, PetitionAnalytics as PetitionAnalyticsAnswer } from '../../core/analytics/analytics-cache.ts';
import { analyticsRange, assertMayViewAnalytics } from '../../core/analytics/petition-analytics.ts';
import { platformStats, statsRange } from '../../core/analytics/platform-stats.ts';
import { findPetitionById } from '../../core/petitions/queries.ts';
import type { PublicPetitionCache } from '../../core/petitions/read-cache.ts';
import { loadViewer } from '../../core/petitions/viewer.ts';
import { markViewerSpecific } from '../http/conditional.ts';
import { sendData } from '../http/context.ts';
import { presentedOnce } from '../http/memoized-answers.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { PetitionAnalytics, PetitionAnalyticsParams, PetitionAnalyticsQuery, PlatformStats, StatsQuery } from './schemas.ts';

export function createAnalyticsRoutes(deps: { db: DatabasePool; petitions: PublicPetitionCache; petitionAnalytics: CachedPetitionAnalytics }): AnyRouteSpec[] {
  const tag = 'Analytics';
  // The same answer object is handed out until the rollups move (analytics-cache.ts): checked once per object.
  const presentAnalytics = presentedOnce<PetitionAnalyticsAnswer, PetitionAnalyticsAnswer>();
  return [
    defineRoute({
      method: 'get',
      path: '/v1/petitions/:id/analytics',
      operationId: 'petitionAnalytics',
      tag,
      auth: 'required',
      scope: 'read:petitions',
      permission: 'read',
      summary: "Get a petition's analytics",
      description: 'Signature growth, signers’ places, traffic sources and page views of a petition (its creator or an administrator).',
      params: PetitionAnalyticsParams,
      query: PetitionAnalyticsQuery,
      responses: {
        200: { description: 'The petition’s analytics', schema: PetitionAnalytics },
        403: { description: 'Not the creator' },
        404: { description: 'No such petition' },
      },
      async handler(ctx, { params, query }) {
        // A public petition's facts (creator, organization, first day) come from the read cache, which
        // forgets them the moment they change; any other petition is read from the database.
        const petition = (await deps.petitions.read(params.id)) ?? (await findPetitionById(deps.db, params.id));
        assertMayViewAnalytics(petition, await loadViewer(deps.db, ctx.state.principal, petition));
        const range = analyticsRange(petition, query.start_date, query.end_date);
        const answer = await deps.petitionAnalytics(petition.id, range, query.granularity);
        markViewerSpecific(ctx);
        sendData(ctx, presentAnalytics(answer, () => ({ ...answer })).data);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/analytics/stats',
      operationId: 'platformStats',
      tag,
      auth: 'none',
      summary: 'Get platform statistics',
      description: 'Daily platform totals, trending petitions and signatures by country (publicly listed petitions only).',
      query: StatsQuery,
      responses: { 200: { description: 'Platform statistics', schema: PlatformStats }, 404: { description: 'petition_id is not a publicly listed petition' } },
      async handler(ctx, { query }) {
        const range = statsRange(query.start_date, query.end_date);
        sendData(ctx, await platformStats(deps.db, { petitionId: query.petition_id, ...range, limit: query.limit }));
      },
    }),
  ];
}
