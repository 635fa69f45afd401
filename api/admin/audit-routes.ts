// The audit log, platform metrics and bulk signature invalidation for administrators.
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { auditContextOf, listAuditLogs, presentAuditRow } from '../../core/audit/audit-log.ts';
import { ensure, NotFound } from '../../core/errors/domain-error.ts';
import { platformMetrics, type RunningWorkflows } from '../../core/moderation/metrics.ts';
import { createCursorCodec } from '../../core/pagination/keyset.ts';
import { createInvalidation, findInvalidation, type InvalidationWorkflows, type ResolvedFilter } from '../../core/signatures/invalidation.ts';
import { networkBlockHashesOf } from '../../core/signatures/network-block.ts';
import { sendData } from '../http/context.ts';
import { sendKeysetList } from '../http/pagination.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import { AuditList, AuditQuery, IdParams, InvalidationBody, InvalidationEnvelope, MetricsEnvelope } from './schemas.ts';

const cursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]), 'audit-logs');
const tag = 'Admin';
// A dry run (or a small real one) usually ends within this; otherwise the answer is 202 and the
// invalidation is polled at its Location.
const WAIT_FOR_RESULT_MS = 10_000;

export function createAdminAuditRoutes(deps: { db: DatabasePool; workflows: RunningWorkflows & InvalidationWorkflows; networkKey: Buffer }): AnyRouteSpec[] {
  const { db } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/v1/admin/audit-logs',
      operationId: 'adminAuditLogs',
      tag,
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'admin',
      summary: 'List audit log entries',
      description: 'The append-only audit log, newest first, by actor, action, target type and time.',
      query: AuditQuery,
      responses: { 200: { description: 'A page of audit entries', schema: AuditList } },
      async handler(ctx, { query }) {
        await sendKeysetList(ctx, query, {
          cursor,
          rows: (after, limit) =>
            listAuditLogs(db, { actorId: query.actor_id, action: query.action, targetType: query.target_type, since: query.since }, after, limit),
          position: (row) => [row.position_at, row.id],
          present: presentAuditRow,
        });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/admin/metrics',
      operationId: 'adminMetrics',
      tag,
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'admin',
      summary: 'Get platform metrics',
      description: 'Platform counts: users, petitions by status, signatures, open reports, failed deliveries, running workflows.',
      responses: { 200: { description: 'The counts', schema: MetricsEnvelope } },
      async handler(ctx) {
        sendData(ctx, await platformMetrics(db, deps.workflows));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/admin/petitions/:id/invalidate-signatures',
      operationId: 'adminInvalidateSignatures',
      tag,
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'admin',
      summary: 'Invalidate signatures',
      description: 'Invalidate (or with dry_run, count) the signatures matching a filter, in batches; invalidated signatures are kept but no longer counted.',
      params: IdParams,
      body: InvalidationBody,
      responses: {
        200: { description: 'Finished: the count matched (and the new signature count)', schema: InvalidationEnvelope },
        202: { description: 'Still running: poll the Location', schema: InvalidationEnvelope },
        404: { description: 'No such petition' },
      },
      async handler(ctx, { params, body }) {
        const principal = ctx.state.principal!;
        const inBlock = body.filter.ip_block ? networkBlockHashesOf(deps.networkKey, body.filter.ip_block).map((hash) => hash.toString('hex')) : null;
        const named = body.filter.network_hash;
        const filter: ResolvedFilter = {
          networkHashes: named ? (inBlock ?? [named]).filter((hash) => hash === named) : inBlock,
          emailDomain: body.filter.email_domain?.toLowerCase() ?? null,
          flaggedOnly: body.filter.flagged ?? false,
          since: body.filter.since ?? null,
          until: body.filter.until ?? null,
        };
        const invalidationId = await createInvalidation(db, {
          petitionId: params.id,
          filter: body.filter,
          dryRun: body.dry_run,
          requestedBy: principal.userId,
        });
        const run = await deps.workflows.invalidateSignatures({
          invalidationId,
          petitionId: params.id,
          filter,
          dryRun: body.dry_run,
          audit: auditContextOf(principal, ctx.state.requestId),
        });
        const finished = await Promise.race([
          run.ended.then(() => true),
          new Promise<false>((resolve) => setTimeout(() => resolve(false), WAIT_FOR_RESULT_MS).unref()),
        ]);
        ctx.set('Location', `/v1/admin/signature-invalidations/${invalidationId}`);
        sendData(ctx, await findInvalidation(db, invalidationId), finished ? 200 : 202);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/admin/signature-invalidations/:id',
      operationId: 'adminGetInvalidation',
      tag,
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'admin',
      summary: 'Get a signature invalidation',
      description: 'One signature invalidation: running or completed, with the count matched.',
      params: IdParams,
      responses: { 200: { description: 'The invalidation', schema: InvalidationEnvelope }, 404: { description: 'No such invalidation' } },
      async handler(ctx, { params }) {
        const invalidation = await findInvalidation(db, params.id);
        ensure(invalidation, NotFound, 'There is no such invalidation.');
        sendData(ctx, invalidation);
      },
    }),
  ];
}
