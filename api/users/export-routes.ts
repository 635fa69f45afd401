// A person's copy of their data (issue 46): start an export, list them, and the emailed once-only
// download link. A suspended person can still export (the routes allow it; everything else refuses them).
import type { DatabasePool } from 'slonik';
import { claimExportDownload, listAccountExports, startAccountExport, type AccountExportWorkflows } from '../../core/account-exports/exports.ts';
import type { MediaStorage } from '../../platform/storage/media-storage.ts';
import { sendData, sendList } from '../http/context.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { AccountExportEnvelope, AccountExportList, ExportDownloadParams, ExportDownloadQuery, toAccountExport } from './export-schemas.ts';

export type ExportRouteDependencies = { db: DatabasePool; workflows: AccountExportWorkflows; storage: MediaStorage; linkTtlMs: number };

export function createExportRoutes(deps: ExportRouteDependencies): AnyRouteSpec[] {
  const base = { tag: 'Users', auth: 'required', suspendedMayCall: true, scope: 'not_for_apps' } as const;
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/users/me/export',
      operationId: 'startAccountExport',
      permission: 'write',
      summary: 'Export your data',
      description:
        'Builds one ZIP of JSON files (profile, signatures with their petitions, comments, petitions, organizations, ' +
        "API keys' names and prefixes, OAuth authorizations, notifications, reports you made) and emails a link that " +
        'works once, for RALLY_EXPORT_LINK_TTL (7 days). One export runs at a time (409 `export_running`), three a day (429).',
      responses: {
        202: { description: 'The export, running', schema: AccountExportEnvelope },
        409: { description: '`export_running`: an export of yours is still running; `account_deletion_running`: your account is being deleted' },
        429: { description: 'Three exports in the last 24 hours; Retry-After says when the next is possible' },
      },
      async handler(ctx) {
        sendData(ctx, toAccountExport(await startAccountExport(deps, ctx.state.principal!.userId)), 202);
      },
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/users/me/exports',
      operationId: 'listAccountExports',
      permission: 'read',
      summary: 'List your data exports',
      description: 'Newest first, the last 50.',
      responses: { 200: { description: 'Your exports', schema: AccountExportList } },
      async handler(ctx) {
        const rows = await listAccountExports(deps.db, ctx.state.principal!.userId);
        sendList(ctx, rows.map(toAccountExport), { next_cursor: null, has_more: false });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/account-exports/:id/download',
      operationId: 'downloadAccountExport',
      tag: 'Users',
      auth: 'none',
      summary: 'Download an export',
      description: 'Through the link emailed to its owner; the link works once.',
      params: ExportDownloadParams,
      query: ExportDownloadQuery,
      responses: {
        200: { description: 'The ZIP archive', contentType: 'application/zip' },
        404: { description: 'No export at this link (unknown export or wrong token)' },
        410: { description: 'The link was already used or has expired' },
      },
      async handler(ctx, { params, query }) {
        const key = await claimExportDownload(deps.db, params.id, query.token);
        const archive = await deps.storage.read(key);
        // Fetched once: the archive need not wait in storage for its link to expire.
        await deps.storage.remove(key);
        ctx.status = 200;
        ctx.type = 'application/zip';
        ctx.set('Content-Disposition', `attachment; filename="rally-export-${params.id}.zip"`);
        ctx.set('Cache-Control', 'no-store');
        ctx.body = archive;
      },
    }),
  ];
}
