// POST /v1/reports: a signed-in person reports a petition, comment or user they can see. The report is stored (with the keyed hash of the reporter's network
// block, checked for brigading), then handed to the target's moderation workflow, which hides the target pending review once enough established people reported
// it. Reports per user are rate limited; organization keys cannot report.
import type { DatabasePool } from 'slonik';
import { auditContextOf } from '../../core/audit/audit-log.ts';
import { fileReport } from '../../core/moderation/reporters.ts';
import { presentReport } from '../../core/moderation/reports.ts';
import type { ModerationWorkflowDependencies } from '../../core/moderation/workflow-port.ts';
import { networkBlockHash } from '../../core/signatures/network-block.ts';
import { sendData } from '../http/context.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import { ReportCreate, ReportEnvelope } from './schemas.ts';

export type ReportRouteDependencies = ModerationWorkflowDependencies & { db: DatabasePool; networkKey: Buffer; brigadeThreshold: number };

export function createReportRoutes(deps: ReportRouteDependencies): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/reports',
      operationId: 'createReport',
      tag: 'Reports',
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'write',
      rateLimit: 'report',
      summary: 'Report content or a user',
      description:
        'Report a petition, comment or user (once per target while your report is open; ' +
        'RALLY_REPORT_LIMIT_PER_HOUR per user; people only, not organization keys).',
      body: ReportCreate,
      responses: {
        201: { description: 'The report, open', schema: ReportEnvelope },
        403: { description: 'An organization API key: reports are made by people' },
        404: { description: 'No such target, or one you cannot see' },
        409: { description: 'You already have an open report on this target' },
      },
      async handler(ctx, { body }) {
        const principal = ctx.state.principal!;
        const target = { type: body.target_type, id: body.target_id };
        const report = await fileReport(
          deps.db,
          {
            reporterId: principal.userId,
            target,
            reason: body.reason,
            description: body.description ?? null,
            networkHash: networkBlockHash(deps.networkKey, ctx.state.clientIp),
          },
          { brigadeThreshold: deps.brigadeThreshold },
          auditContextOf(principal, ctx.state.requestId),
        );
        // The report is the record; the workflow recounts open reports from the database on each signal.
        await deps.workflows.reportFiled(target, report.id);
        sendData(ctx, presentReport(report), 201);
      },
    }),
  ];
}
