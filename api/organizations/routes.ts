// /v1/organizations: the public list and profiles, create (the caller becomes owner), change (owner
// or admin), delete (owner), the organization's petitions and its subscription. Members: member-routes.ts.
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { createCursorCodec, paginate } from '../../core/pagination/keyset.ts';
import { changeOrganization, createOrganization, removeOrganization } from '../../core/organizations/manage.ts';
import { listOrganizationPetitions, organizationPetitionCursor } from '../../core/organizations/petitions.ts';
import { findOrganizationById, findOrganizationBySlug, listOrganizations } from '../../core/organizations/queries.ts';
import { subscriptionOf } from '../../core/organizations/tiers.ts';
import { toPetitionSummary } from '../../core/petitions/presenter.ts';
import { sendData, sendList } from '../http/context.ts';
import { assertThat } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import { PetitionList } from '../petitions/schemas.ts';
import { CursorQuery, LimitQuery, sendKeysetList } from '../http/pagination.ts';
import {
  OrganizationCreate,
  OrganizationEnvelope,
  OrganizationList,
  OrganizationListQuery,
  OrganizationUpdate,
  OrgParams,
  OrgRefParams,
  SubscriptionEnvelope,
  toOrganization,
} from './schemas.ts';

const cursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]), 'organizations');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const tag = 'Organizations';

export function createOrganizationRoutes(deps: { db: DatabasePool }): AnyRouteSpec[] {
  const { db } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/v1/organizations',
      operationId: 'listOrganizations',
      tag,
      auth: 'none',
      summary: 'List organizations',
      description: 'Organizations, newest first.',
      query: OrganizationListQuery,
      responses: { 200: { description: 'A page of organizations', schema: OrganizationList } },
      async handler(ctx, { query }) {
        await sendKeysetList(ctx, query, {
          cursor,
          rows: (after, limit) => listOrganizations(db, { verifiedOnly: query.verified_only ?? false, after, limit }),
          position: (row) => [row.created_at, row.id],
          present: toOrganization,
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/organizations',
      operationId: 'createOrganization',
      tag,
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'write',
      summary: 'Create an organization',
      description: 'Create an organization; you become its owner. Its slug comes from the name.',
      body: OrganizationCreate,
      responses: { 201: { description: 'The organization', schema: OrganizationEnvelope }, 409: { description: 'The name or slug is taken' } },
      async handler(ctx, { body }) {
        const org = await createOrganization(db, ctx.state.principal!.userId, {
          name: body.name.trim(),
          description: body.description,
          logoUrl: body.logo_url,
          website: body.website,
        });
        ctx.set('Location', `/v1/organizations/${org.slug}`);
        sendData(ctx, toOrganization(org), 201);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/organizations/:org_id',
      operationId: 'getOrganization',
      tag,
      auth: 'none',
      summary: 'Get an organization',
      description: 'The public profile of an organization, by slug (or id).',
      params: OrgRefParams,
      responses: { 200: { description: 'The organization', schema: OrganizationEnvelope } },
      async handler(ctx, { params }) {
        const org = UUID.test(params.org_id) ? await findOrganizationById(db, params.org_id) : await findOrganizationBySlug(db, params.org_id);
        assertThat(org, 'not-found', `There is no organization ${params.org_id}.`);
        sendData(ctx, toOrganization(org));
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/organizations/:org_id',
      operationId: 'updateOrganization',
      tag,
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'write',
      summary: 'Update an organization',
      description: 'Change an organization (owner or admin); null clears an optional field.',
      params: OrgParams,
      body: OrganizationUpdate,
      responses: { 200: { description: 'The organization', schema: OrganizationEnvelope } },
      async handler(ctx, { params, body }) {
        const org = await changeOrganization(db, params.org_id, ctx.state.principal!.userId, {
          name: body.name?.trim(),
          description: body.description,
          logoUrl: body.logo_url,
          website: body.website,
        });
        sendData(ctx, toOrganization(org));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/organizations/:org_id',
      operationId: 'deleteOrganization',
      tag,
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'destroy',
      summary: 'Delete an organization',
      description: 'Delete an organization (owner only): its petitions stay with their creators, its API keys are revoked.',
      params: OrgParams,
      responses: { 204: { description: 'Deleted' } },
      async handler(ctx, { params }) {
        await removeOrganization(db, params.org_id, ctx.state.principal!.userId);
        ctx.status = 204;
      },
    }),
    ...createOrganizationHoldingsRoutes(deps),
  ];
}

/** What an organization holds: its petitions and its subscription. */
function createOrganizationHoldingsRoutes(deps: { db: DatabasePool }): AnyRouteSpec[] {
  const { db } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/v1/organizations/:org_id/petitions',
      operationId: 'listOrganizationPetitions',
      tag,
      auth: 'optional',
      scope: 'read:petitions',
      permission: 'read',
      summary: "List an organization's petitions",
      description: "The organization's petitions you may read, newest first (its owner and admins see all of them).",
      params: OrgParams,
      query: Type.Object({ cursor: Type.Optional(CursorQuery), limit: LimitQuery() }, { additionalProperties: false }),
      responses: { 200: { description: 'A page of petitions', schema: PetitionList } },
      async handler(ctx, { params, query }) {
        const viewer = ctx.state.principal?.userId;
        const rows = await listOrganizationPetitions(db, params.org_id, viewer, query);
        const { page, pagination } = paginate(rows, query.limit, (row) => organizationPetitionCursor.encode([row.created_at, row.id]));
        sendList(
          ctx,
          page.map((row) => toPetitionSummary(row, viewer)),
          pagination,
        );
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/organizations/:org_id/subscription',
      operationId: 'getOrganizationSubscription',
      tag,
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'read',
      summary: "Get an organization's subscription",
      description: "The organization's tier, its limits and what is used (members only).",
      params: OrgParams,
      responses: { 200: { description: 'The subscription', schema: SubscriptionEnvelope } },
      async handler(ctx, { params }) {
        sendData(ctx, await subscriptionOf(db, params.org_id, ctx.state.principal!.userId));
      },
    }),
  ];
}
