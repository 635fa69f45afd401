// Shapes of organizations, memberships and subscriptions on the wire (snake_case, like the rest of
// the API's answers). A membership answers `id` (the membership's id), `user_id` and `role`.
import { Type } from '@sinclair/typebox';
import { ORGANIZATION_ROLES, ORGANIZATION_TIERS } from '../../core/vocabulary.ts';
import { CursorQuery, LimitQuery, PaginationSchema } from '../http/pagination.ts';
import { Meta } from '../http/envelopes.ts';
import type { OrganizationRow } from '../../core/organizations/queries.ts';
import type { MembershipRow } from '../../core/organizations/members.ts';

const Uuid = Type.String({ format: 'uuid' });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Name = Type.String({ minLength: 2, maxLength: 100 });
const Description = Type.String({ maxLength: 1000 });
const Url = Type.String({ format: 'uri', maxLength: 2048 });

export const OrganizationCreate = Type.Object(
  { name: Name, description: Type.Optional(Description), logo_url: Type.Optional(Url), website: Type.Optional(Url) },
  { additionalProperties: false },
);

export const OrganizationUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    logo_url: Type.Optional(Type.Union([Url, Type.Null()])),
    website: Type.Optional(Type.Union([Url, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const Organization = Type.Object({
  id: Uuid,
  slug: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  website: Nullable(Type.String()),
  logo_url: Nullable(Type.String()),
  verified: Type.Boolean(),
  member_count: Type.Integer(),
  petition_count: Type.Integer({ description: 'Published, public petitions of the organization.' }),
  created_at: Type.String({ format: 'date-time' }),
});

export const OrganizationEnvelope = Type.Object({ data: Organization, meta: Meta });
export const OrganizationList = Type.Object({ data: Type.Array(Organization), pagination: PaginationSchema, meta: Meta });
export const OrganizationListQuery = Type.Object(
  { verified_only: Type.Optional(Type.Boolean({ default: false })), cursor: Type.Optional(CursorQuery), limit: LimitQuery() },
  { additionalProperties: false },
);

export const OrgParams = Type.Object({ org_id: Uuid });
// The same path parameter as the id-only routes beside it (`/v1/organizations/{org_id}`), so generated clients see one path.
export const OrgRefParams = Type.Object({ org_id: Type.String({ minLength: 1, maxLength: 100, description: 'The organization id, or its slug.' }) });
export const MembershipParams = Type.Object({ org_id: Uuid, membership_id: Uuid });

const AssignableRole = Type.Union([Type.Literal('admin'), Type.Literal('member')], {
  description: 'owner is never assigned: ownership moves by transfer-ownership.',
});
export const MemberAdd = Type.Object({ user_id: Uuid, role: AssignableRole }, { additionalProperties: false });
export const MemberUpdate = Type.Object({ role: AssignableRole }, { additionalProperties: false });

export const Membership = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The membership id (used in member paths).' }),
  user_id: Uuid,
  role: Type.Union(ORGANIZATION_ROLES.map((role) => Type.Literal(role))),
  display_name: Type.String(),
  user_slug: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});
export const MembershipEnvelope = Type.Object({ data: Membership, meta: Meta });
export const MembershipList = Type.Object({ data: Type.Array(Membership), pagination: PaginationSchema, meta: Meta });
export const MemberListQuery = Type.Object(
  { role: Type.Optional(Type.Union(ORGANIZATION_ROLES.map((role) => Type.Literal(role)))), cursor: Type.Optional(CursorQuery), limit: LimitQuery() },
  { additionalProperties: false },
);

export const Subscription = Type.Object({
  tier: Type.Union(ORGANIZATION_TIERS.map((tier) => Type.Literal(tier))),
  status: Type.Literal('active'),
  member_limit: Type.Union([Type.Integer(), Type.Null()], { description: 'null: unlimited' }),
  members_used: Type.Integer(),
  api_key_limit: Type.Union([Type.Integer(), Type.Null()], { description: 'null: unlimited' }),
  current_period_end: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Billing runs outside Rally: always null.' }),
});
export const SubscriptionEnvelope = Type.Object({ data: Subscription, meta: Meta });

export function toOrganization(row: OrganizationRow) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    website: row.website,
    logo_url: row.logo_url,
    verified: row.verified,
    member_count: row.member_count,
    petition_count: row.petition_count,
    created_at: row.created_at,
  };
}

export function toMembership(row: MembershipRow) {
  return { id: row.id, user_id: row.user_id, role: row.role, display_name: row.display_name, user_slug: row.user_slug, created_at: row.created_at };
}
