// GET /v1/admin/reports and POST /v1/admin/reports/{id}/action. A decision goes through the target's
// moderation workflow, which applies it to the target and resolves every open report on it.
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { auditContextOf } from '../../core/audit/audit-log.ts';
import { ensure, NotFound, Conflict } from '../../core/errors/domain-error.ts';
import { findReport, listReports, presentReport } from '../../core/moderation/reports.ts';
import type { ModerationWorkflowDependencies } from '../../core/moderation/workflow-port.ts';
import { createCursorCodec } from '../../core/pagination/keyset.ts';
import { sendData } from '../http/context.ts';
import { sendKeysetList } from '../http/pagination.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import { IdParams, ReportActionBody, ReportActionResult, ReportList, ReportListQuery } from './schemas.ts';

const cursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]), 'admin-reports');
const tag = 'Admin';

export function createAdminReportRoutes(deps: ModerationWorkflowDependencies & { db: DatabasePool }): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/admin/reports',
      operationId: 'adminListReports',
      tag,
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'admin',
      summary: 'List reports',
      description: 'Reports, newest first, by status and target type.',
      query: ReportListQuery,
      responses: { 200: { description: 'A page of reports', schema: ReportList } },
      async handler(ctx, { query }) {
        await sendKeysetList(ctx, query, {
          cursor,
          rows: (after, limit) => listReports(deps.db, { status: query.status, targetType: query.target_type }, after, limit),
          position: (row) => [row.position_at, row.id],
          present: presentReport,
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/admin/reports/:id/action',
      operationId: 'adminActOnReport',
      tag,
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'admin',
      summary: 'Decide on a report',
      description: 'Decide on a report: dismiss, hide, remove, suspend_user, warn_user or restore; every open report on the same target is resolved with it.',
      params: IdParams,
      body: ReportActionBody,
      responses: {
        200: { description: 'The resolved report', schema: ReportActionResult },
        404: { description: 'No such report' },
        409: { description: 'The report is already resolved (for `restore`: and its target is not hidden)' },
      },
      async handler(ctx, { params, body }) {
        const report = await findReport(deps.db, params.id);
        ensure(report, NotFound, 'There is no such report.');
        // `restore` may still act on a closed report whose target stayed hidden; the workflow decides.
        ensure(report.status === 'open' || body.action === 'restore', Conflict, `This report is already ${report.status}.`, { code: 'report_not_open' });
        const outcome = await deps.workflows.decide(
          { type: report.target_type, id: report.target_id },
          {
            reportId: report.id,
            action: body.action,
            note: body.note ?? null,
            audit: auditContextOf(ctx.state.principal!, ctx.state.requestId),
          },
        );
        sendData(ctx, outcome.report);
      },
    }),
  ];
}
