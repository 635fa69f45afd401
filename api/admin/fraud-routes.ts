// The admin fraud tools of issue 44: a petition's flagged crowds (networks and email domains past a signing threshold, and what their accounts look like),
// clearing a crowd's flags, and the allow- and block-lists of signers. Invalidating a crowd is POST /v1/admin/petitions/{id}/invalidate-signatures with
// `flagged: true` (audit-routes.ts). Every change is audit-logged.
import type { DatabasePool } from 'slonik';
import { auditContextOf } from '../../core/audit/audit-log.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import { clearFlags, listFlaggedCrowds } from '../../core/signatures/flagged-crowds.ts';
import { addSigningListEntry, listSigningListEntries, removeSigningListEntry } from '../../core/signatures/signing-lists.ts';
import { sendData, sendList } from '../http/context.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import {
  ClearFlagsBody,
  ClearFlagsEnvelope,
  FlaggedCrowdList,
  FlaggedCrowdQuery,
  SigningListEntryCreate,
  SigningListEntryEnvelope,
  SigningListEntryList,
} from './fraud-schemas.ts';
import { IdParams } from './schemas.ts';

const tag = 'Admin';
const admin = { auth: 'required', scope: NOT_FOR_APPS, permission: 'admin', tag } as const;

export function createAdminFraudRoutes(deps: { db: DatabasePool }): AnyRouteSpec[] {
  const { db } = deps;
  return [
    defineRoute({
      ...admin,
      method: 'get',
      path: '/v1/admin/petitions/:id/flagged-crowds',
      operationId: 'adminFlaggedCrowds',
      summary: 'List flagged crowds',
      description:
        "A petition's signatures flagged past a network or email domain threshold, per network and domain, most first. " +
        'A crowd (a carrier NAT, a university, a company) has established, verified accounts that do other things on Rally; a ' +
        'farm has new, unverified accounts that only sign. Then invalidate (invalidate-signatures with `flagged: true`) or clear the flags.',
      params: IdParams,
      query: FlaggedCrowdQuery,
      responses: { 200: { description: 'The flagged networks and domains', schema: FlaggedCrowdList }, 404: { description: 'No such petition' } },
      async handler(ctx, { params, query }) {
        const rows = await listFlaggedCrowds(db, params.id, query.limit + 1);
        sendList(ctx, rows.slice(0, query.limit), { next_cursor: null, has_more: rows.length > query.limit });
      },
    }),
    defineRoute({
      ...admin,
      method: 'post',
      path: '/v1/admin/petitions/:id/flagged-crowds/clear',
      operationId: 'adminClearFlags',
      summary: "Clear a crowd's flags",
      description: "Clears one network's or email domain's flag from a petition's signatures (a crowd, not a farm).",
      params: IdParams,
      body: ClearFlagsBody,
      responses: { 200: { description: 'How many signatures lost the flag', schema: ClearFlagsEnvelope } },
      async handler(ctx, { params, body }) {
        const cleared = await clearFlags(db, params.id, body, auditContextOf(ctx.state.principal!, ctx.state.requestId));
        sendData(ctx, { cleared });
      },
    }),
    defineRoute({
      ...admin,
      method: 'get',
      path: '/v1/admin/signing-lists',
      operationId: 'adminSigningLists',
      summary: 'List the signing lists',
      description: 'The allow- and block-lists of signing addresses, networks and email domains.',
      responses: { 200: { description: 'Every entry, oldest first', schema: SigningListEntryList } },
      async handler(ctx) {
        sendData(ctx, await listSigningListEntries(db));
      },
    }),
    defineRoute({
      ...admin,
      method: 'post',
      path: '/v1/admin/signing-lists',
      operationId: 'adminAddSigningListEntry',
      summary: 'Add to the signing lists',
      description: 'Allows (never flagged) or blocks (403 signing_blocked) an address, network or email domain; effective within seconds.',
      body: SigningListEntryCreate,
      responses: { 201: { description: 'Listed (or updated, when listed already)', schema: SigningListEntryEnvelope } },
      async handler(ctx, { body }) {
        const entry = await addSigningListEntry(db, { ...body, note: body.note ?? null }, auditContextOf(ctx.state.principal!, ctx.state.requestId));
        sendData(ctx, entry, 201);
      },
    }),
    defineRoute({
      ...admin,
      method: 'delete',
      path: '/v1/admin/signing-lists/:id',
      operationId: 'adminRemoveSigningListEntry',
      summary: 'Remove a signing-list entry',
      description: 'Removes an entry from the signing lists; effective within seconds.',
      params: IdParams,
      responses: { 204: { description: 'Removed' }, 404: { description: 'No such entry' } },
      async handler(ctx, { params }) {
        await removeSigningListEntry(db, params.id, auditContextOf(ctx.state.principal!, ctx.state.requestId));
        ctx.status = 204;
      },
    }),
  ];
}
