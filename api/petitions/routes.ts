// /v1/petitions: create, list, read (by slug or id), update, soft delete, access codes, categories.
// Lifecycle transitions live in transition-routes.ts.
import { Type } from '@sinclair/typebox';
import type { Client } from '@temporalio/client';
import type { DatabasePool } from 'slonik';
import { actorOf, recordEvent } from '../../core/events/record-event.ts';
import { sendData, sendList } from '../http/context.ts';
import { paginate } from '../../core/pagination/keyset.ts';
import { RallyError } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { slugify } from '../../core/users/slugs.ts';
import { accessCodeMatches, assertCanManage, assertCanRead, assertOwner, assertSignaturePrivacyChange, canManage } from '../../core/petitions/policy.ts';
import type { AccessCodeGuard } from '../../core/petitions/access-code-guard.ts';
import type { PageViewCounter } from '../../core/analytics/page-views.ts';
import { assertTagLimit, createPetition, newAccessCode } from '../../core/petitions/create.ts';
import { listPetitions, positionOf } from '../../core/petitions/listing.ts';
import { toPetitionSummary } from '../../core/petitions/presenter.ts';
import { findPetitionById, findPetitionBySlug, listCategories, softDeletePetition, updatePetition } from '../../core/petitions/queries.ts';
import {
  AccessBody, Category, PetitionCreate, PetitionEnvelope, PetitionIdParams, PetitionList, PetitionListQuery, PetitionReadQuery, PetitionRefParams, PetitionUpdate,
} from './schemas.ts';
import { petitionDeletedSignal, petitionWorkflowId } from '../../workflows/petition-lifecycle.ts';

export type PetitionRouteDependencies = { db: DatabasePool; temporal: Client; taskQueue: string; accessCodeGuard: AccessCodeGuard; pageViews?: PageViewCounter };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createPetitionRoutes(deps: PetitionRouteDependencies): AnyRouteSpec[] {
  const tag = 'Petitions';
  return [
    defineRoute({
      method: 'get', path: '/v1/categories', operationId: 'listCategories', tag, auth: 'none', summary: 'The categories petitions can be filed under',
      responses: { 200: { description: 'Categories', schema: Type.Object({ data: Type.Array(Category) }) } },
      async handler(ctx) {
        sendData(ctx, await listCategories(deps.db));
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/petitions', operationId: 'listPetitions', tag, auth: 'optional', permission: 'read',
      summary: 'Public petitions (your own, all of them, with creatorId = your id)',
      query: PetitionListQuery,
      responses: { 200: { description: 'A page of petitions', schema: PetitionList } },
      async handler(ctx, { query }) {
        const viewer = ctx.state.principal?.userId;
        const rows = await listPetitions(deps.db, query, viewer);
        const { page, pagination } = paginate(rows, query.limit, (row) => positionOf(query.sort, row));
        sendList(ctx, page.map((row) => toPetitionSummary(row, viewer)), pagination);
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/petitions', operationId: 'createPetition', tag, auth: 'required', permission: 'write', summary: 'Start a petition (as a draft)',
      body: PetitionCreate,
      responses: { 201: { description: 'The draft petition', schema: PetitionEnvelope } },
      async handler(ctx, { body }) {
        const principal = ctx.state.principal!;
        const petition = await createPetition(deps, principal.userId, actorOf(principal), body);
        ctx.set('Location', `/v1/petitions/${petition.id}`);
        sendData(ctx, toPetitionSummary(petition, principal.userId), 201);
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/petitions/:slug', operationId: 'getPetition', tag, auth: 'optional', permission: 'read',
      summary: 'A petition by slug or id; a private one needs its creator or ?access_code=',
      params: PetitionRefParams, query: PetitionReadQuery,
      responses: { 200: { description: 'The petition', schema: PetitionEnvelope } },
      async handler(ctx, { params, query }) {
        const viewer = ctx.state.principal?.userId;
        const petition = UUID.test(params.slug) ? await findPetitionById(deps.db, params.slug) : await findPetitionBySlug(deps.db, params.slug);
        if (petition?.visibility === 'private' && query.access_code !== undefined && petition.creator_id !== viewer) {
          await deps.accessCodeGuard.check(petition.id, ctx.state.clientIp, accessCodeMatches(petition.access_code, query.access_code));
        }
        assertCanRead(petition, viewer, query.access_code, petition?.org_id ? await canManage(deps.db, petition, viewer) : false);
        deps.pageViews?.record(petition.id);
        sendData(ctx, toPetitionSummary(petition, viewer));
      },
    }),
    defineRoute({
      method: 'patch', path: '/v1/petitions/:id', operationId: 'updatePetition', tag, auth: 'required', permission: 'write', summary: 'Change a petition (creator only)',
      params: PetitionIdParams, body: PetitionUpdate,
      responses: { 200: { description: 'The petition', schema: PetitionEnvelope } },
      async handler(ctx, { params, body }) {
        const principal = ctx.state.principal!;
        assertTagLimit(body.tags);
        const updated = await deps.db.transaction(async (tx) => {
          const petition = await assertCanManage(tx, await findPetitionById(tx, params.id), principal.userId);
          assertSignaturePrivacyChange(petition, body.signaturePrivacy);
          // The slug follows the title while the petition is a draft, and is fixed once published.
          const slug = body.title && petition.status === 'draft' && body.title !== petition.title ? `${slugify(body.title)}-${petition.id.slice(0, 6)}` : undefined;
          const accessCode = body.visibility === 'private' && !petition.access_code ? newAccessCode() : undefined;
          await updatePetition(tx, params.id, { ...body, tags: body.tags && [...new Set(body.tags)], slug, accessCode });
          const after = (await findPetitionById(tx, params.id))!;
          await recordEvent(tx, { type: 'petition.updated', actor: actorOf(principal), petitionId: params.id, data: toPetitionSummary(after, undefined) });
          return after;
        });
        sendData(ctx, toPetitionSummary(updated, principal.userId));
      },
    }),
    defineRoute({
      method: 'delete', path: '/v1/petitions/:id', operationId: 'deletePetition', tag, auth: 'required', permission: 'destroy', summary: 'Delete a petition (soft; creator only)',
      params: PetitionIdParams,
      responses: { 204: { description: 'Deleted' } },
      async handler(ctx, { params }) {
        const principal = ctx.state.principal!;
        await deps.db.transaction(async (tx) => {
          assertOwner(await findPetitionById(tx, params.id), principal.userId);
          await softDeletePetition(tx, params.id, principal.userId);
        });
        // Best effort: a workflow that misses this only waits; its transitions already refuse a deleted petition.
        await deps.temporal.workflow.getHandle(petitionWorkflowId(params.id)).signal(petitionDeletedSignal).catch(() => undefined);
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/petitions/:id/access', operationId: 'checkPetitionAccessCode', tag, auth: 'none', summary: 'Check an access code of a private petition',
      params: PetitionIdParams, body: AccessBody,
      responses: { 200: { description: '{valid: true}', schema: Type.Object({ data: Type.Object({ valid: Type.Boolean() }) }) }, 403: { description: 'Wrong code' } },
      async handler(ctx, { params, body }) {
        const petition = await findPetitionById(deps.db, params.id);
        if (!petition || petition.status === 'draft' || petition.status === 'under_review') throw new RallyError('not-found', 'There is no such petition.');
        const valid = petition.visibility !== 'private' || accessCodeMatches(petition.access_code, body.accessCode);
        await deps.accessCodeGuard.check(petition.id, ctx.state.clientIp, valid);
        if (!valid) throw new RallyError('forbidden', 'The access code is not valid.', { code: 'invalid_access_code' });
        sendData(ctx, { valid: true });
      },
    }),
  ];
}
