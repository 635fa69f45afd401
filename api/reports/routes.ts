// POST /v1/reports: any signed-in user reports a petition, comment or user they can see. The report
// is stored, then handed to the target's moderation workflow, which hides the target pending review
// once enough distinct users reported it. Reports per user are rate limited.
import type { DatabasePool } from 'slonik';
import { createReport, presentReport } from '../../core/moderation/reports.ts';
import { signalReport, type ModerationWorkflowDependencies } from '../../core/moderation/workflow-client.ts';
import { sendData } from '../http/context.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { ReportCreate, ReportEnvelope } from './schemas.ts';

export function createReportRoutes(deps: ModerationWorkflowDependencies & { db: DatabasePool }): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'post', path: '/v1/reports', operationId: 'createReport', tag: 'Reports', auth: 'required', permission: 'write', rateLimit: 'report',
      summary: 'Report a petition, comment or user (once per target while your report is open; RALLY_REPORT_LIMIT_PER_HOUR per user)',
      body: ReportCreate,
      responses: {
        201: { description: 'The report, open', schema: ReportEnvelope },
        404: { description: 'No such target, or one you cannot see' },
        409: { description: 'You already have an open report on this target' },
      },
      async handler(ctx, { body }) {
        const reporterId = ctx.state.principal!.userId;
        const target = { type: body.target_type, id: body.target_id };
        const report = await createReport(deps.db, { reporterId, target, reason: body.reason, description: body.description ?? null });
        // The report is the record; the workflow recounts open reports from the database on each signal.
        await signalReport(deps, target, report.id);
        sendData(ctx, presentReport(report), 201);
      },
    }),
  ];
}
