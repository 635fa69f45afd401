// /v1/petitions: create, list, read (by slug or id), update, soft delete, access codes, categories.
// Lifecycle transitions live in transition-routes.ts.
import type { PageViewCounter } from '../../core/analytics/page-views.ts';
import { loadViewer } from '../../core/petitions/viewer.ts';
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { actorOf } from '../../core/events/record-event.ts';
import { sendData, sendList } from '../http/context.ts';
import { paginate } from '../../core/pagination/keyset.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { assertWebUrl } from '../http/web-urls.ts';
import { viewerOf } from '../../core/petitions/policy.ts';
import type { AccessCodeGuard } from '../../core/petitions/access-code-guard.ts';
import type { PublicPetitionCache } from '../../core/petitions/read-cache.ts';
import type { PetitionRow } from '../../core/petitions/queries.ts';
import type { PetitionWorkflows } from '../../core/petitions/lifecycle.ts';
import { markViewerSpecific, notModified } from '../http/conditional.ts';
import { presentedOnce } from '../http/memoized-answers.ts';
import { createPetition } from '../../core/petitions/create.ts';
import { listPetitions, positionOf } from '../../core/petitions/listing.ts';
import { checkAccessCode, deletePetition, readPetitionByLink, updatePetition } from '../../core/petitions/manage.ts';
import { toPetitionDetail, toPetitionSummary } from '../../core/petitions/presenter.ts';
import { listCategories } from '../../core/petitions/queries.ts';
import {
  AccessBody,
  Category,
  PetitionCreate,
  PetitionEnvelope,
  PetitionIdParams,
  PetitionList,
  PetitionListQuery,
  PetitionReadQuery,
  PetitionRefParams,
  PetitionUpdate,
} from './schemas.ts';

export type PetitionRouteDependencies = {
  db: DatabasePool;
  workflows: PetitionWorkflows;
  accessCodeGuard: AccessCodeGuard;
  pageViews?: PageViewCounter;
  /** Anonymous reads of public petitions and public list pages (core/petitions/read-cache.ts). */
  cache: PublicPetitionCache;
  /** Production: imageUrl must be https (http/web-urls.ts). */
  httpsOnly?: boolean;
  /** RALLY_SIGNER_DATA_RETENTION (null: off): a petition's answer says when its signers' details go. */
  signerDataRetentionMs: number | null;
};

const tag = 'Petitions';
const detail = (deps: PetitionRouteDependencies, row: PetitionRow, viewerId: string | undefined) => toPetitionDetail(row, viewerId, deps.signerDataRetentionMs);

export function createPetitionRoutes(deps: PetitionRouteDependencies): AnyRouteSpec[] {
  const publicPetition = presentedOnce<Readonly<PetitionRow>, ReturnType<typeof toPetitionDetail>>();
  const publicPage = presentedOnce<
    readonly PetitionRow[],
    { page: ReturnType<typeof toPetitionSummary>[]; pagination: ReturnType<typeof paginate>['pagination'] }
  >();
  return [
    defineRoute({
      method: 'get',
      path: '/v1/categories',
      operationId: 'listCategories',
      tag,
      auth: 'none',
      summary: 'List petition categories',
      description: 'The categories petitions can be filed under.',
      responses: { 200: { description: 'Categories', schema: Type.Object({ data: Type.Array(Category) }) } },
      async handler(ctx) {
        sendData(ctx, await listCategories(deps.db));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/petitions',
      operationId: 'listPetitions',
      tag,
      auth: 'optional',
      scope: 'read:petitions',
      permission: 'read',
      summary: 'List petitions',
      description: 'Public petitions (your own, all of them, with creatorId = your id).',
      query: PetitionListQuery,
      responses: {
        200: { description: 'A page of petitions', schema: PetitionList },
        304: { description: 'Not modified (If-None-Match matched the ETag of an anonymous answer)' },
      },
      async handler(ctx, { query }) {
        const viewer = ctx.state.principal?.userId;
        // Without creatorId the list is the public one, whoever asks (listing.ts); only the access
        // code of a caller's own petition differs, so the cached rows are presented per caller.
        if (query.creatorId === undefined && viewer === undefined) {
          const rows = await deps.cache.list(query);
          const { data, etag } = publicPage(rows, () => {
            const { page, pagination } = paginate(rows, query.limit, (row) => positionOf(query.sort, row));
            return { page: page.map((row) => toPetitionSummary(row, undefined)), pagination };
          });
          if (notModified(ctx, etag)) return;
          sendList(ctx, data.page, data.pagination);
          return;
        }
        const rows = query.creatorId === undefined ? await deps.cache.list(query) : await listPetitions(deps.db, query, viewerOf(ctx.state.principal));
        const { page, pagination } = paginate(rows, query.limit, (row) => positionOf(query.sort, row));
        markViewerSpecific(ctx);
        sendList(
          ctx,
          page.map((row) => toPetitionSummary(row, viewer)),
          pagination,
        );
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/petitions',
      operationId: 'createPetition',
      tag,
      auth: 'required',
      scope: 'write:petitions',
      permission: 'write',
      summary: 'Start a petition',
      description:
        'The petition starts as a draft, visible to its creator only; POST /v1/petitions/{id}/publish makes it public. ' + 'Emits `petition.created`.',
      body: PetitionCreate,
      responses: { 201: { description: 'The draft petition', schema: PetitionEnvelope } },
      async handler(ctx, { body }) {
        const principal = ctx.state.principal!;
        assertWebUrl(deps.httpsOnly ?? false, 'imageUrl', body.imageUrl);
        const petition = await createPetition(deps, principal.userId, actorOf(principal), body);
        ctx.set('Location', `/v1/petitions/${petition.id}`);
        sendData(ctx, detail(deps, petition, principal.userId), 201);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/petitions/:id',
      operationId: 'getPetition',
      tag,
      auth: 'optional',
      scope: 'read:petitions',
      permission: 'read',
      summary: 'Get a petition',
      description: 'A petition by slug or id; a private one needs its creator or ?access_code=.',
      params: PetitionRefParams,
      query: PetitionReadQuery,
      responses: {
        200: { description: 'The petition', schema: PetitionEnvelope },
        304: { description: 'Not modified (If-None-Match matched the ETag of an anonymous answer)' },
      },
      async handler(ctx, { params, query }) {
        if (!ctx.state.principal && query.access_code === undefined) {
          const row = await deps.cache.read(params.id);
          if (row) {
            deps.pageViews?.record(row.id);
            const { data, etag } = publicPetition(row, () => detail(deps, row, undefined));
            if (!notModified(ctx, etag)) sendData(ctx, data);
            return;
          }
        }
        markViewerSpecific(ctx);
        const petition = await readPetitionByLink(deps, await loadViewer(deps.db, ctx.state.principal), params.id, {
          accessCode: query.access_code,
          clientIp: ctx.state.clientIp,
        });
        deps.pageViews?.record(petition.id);
        sendData(ctx, detail(deps, petition, ctx.state.principal?.userId));
      },
    }),
    ...createPetitionChangeRoutes(deps),
  ];
}

/** Changing a petition (edit, delete), and checking the access code of a private one. */
function createPetitionChangeRoutes(deps: PetitionRouteDependencies): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'patch',
      path: '/v1/petitions/:id',
      operationId: 'updatePetition',
      tag,
      auth: 'required',
      scope: 'write:petitions',
      permission: 'write',
      summary: 'Update a petition',
      description: 'Change a petition (creator only).',
      params: PetitionIdParams,
      body: PetitionUpdate,
      responses: { 200: { description: 'The petition', schema: PetitionEnvelope } },
      async handler(ctx, { params, body }) {
        const principal = ctx.state.principal!;
        assertWebUrl(deps.httpsOnly ?? false, 'imageUrl', body.imageUrl);
        const updated = await updatePetition(deps.db, await loadViewer(deps.db, principal), actorOf(principal), params.id, body);
        sendData(ctx, detail(deps, updated, principal.userId));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/petitions/:id',
      operationId: 'deletePetition',
      tag,
      auth: 'required',
      scope: 'write:petitions',
      permission: 'destroy',
      summary: 'Delete a petition',
      description: 'Delete a petition (soft; creator only).',
      params: PetitionIdParams,
      responses: { 204: { description: 'Deleted' } },
      async handler(ctx, { params }) {
        const principal = ctx.state.principal!;
        await deletePetition(deps.db, await loadViewer(deps.db, principal), params.id);
        // Best effort: a workflow that misses this only waits; its transitions already refuse a deleted petition.
        await deps.workflows.petitionDeleted(params.id);
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/petitions/:id/access',
      operationId: 'checkPetitionAccessCode',
      tag,
      auth: 'none',
      summary: "Check a petition's access code",
      description: 'Check an access code of a private petition.',
      params: PetitionIdParams,
      body: AccessBody,
      responses: {
        200: { description: '{valid: true}', schema: Type.Object({ data: Type.Object({ valid: Type.Boolean() }) }) },
        403: { description: 'Wrong code' },
      },
      async handler(ctx, { params, body }) {
        await checkAccessCode(deps, params.id, { accessCode: body.accessCode, clientIp: ctx.state.clientIp });
        sendData(ctx, { valid: true });
      },
    }),
  ];
}
