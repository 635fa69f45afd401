// Tiers and the subscription view. The limits of each tier live in one table (organization_tiers);
// an operator moves an organization between tiers (`rally orgs set-tier`). Payment happens outside
// Rally, but an upgrade is recorded as payment.completed so integrations can follow it.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { NotFound } from '../errors/domain-error.ts';
import { recordEvent } from '../events/record-event.ts';
import type { OrganizationTier } from '../vocabulary.ts';
import { ANY_MEMBER, assertOrganizationRole, noSuchOrganization } from './roles.ts';

const TierRow = z.object({ tier: z.string(), rank: z.number(), member_limit: z.number().nullable(), api_key_limit: z.number().nullable() });

export function tierLimits(db: CommonQueryMethods, tier: string) {
  return db.one(sql.type(TierRow)`SELECT tier, rank, member_limit, api_key_limit FROM organization_tiers WHERE tier = ${tier}`);
}

export async function subscriptionOf(db: CommonQueryMethods, orgId: string, callerId: string) {
  await assertOrganizationRole(db, orgId, callerId, ANY_MEMBER, 'see its subscription');
  const row = await db.maybeOne(sql.type(TierRow.extend({ members_used: z.number() }))`
    SELECT t.tier, t.rank, t.member_limit, t.api_key_limit,
      (SELECT count(*) FROM organization_members m WHERE m.org_id = o.id)::int AS members_used
    FROM organizations o JOIN organization_tiers t ON t.tier = o.tier
    WHERE o.id = ${orgId}
  `);
  if (!row) throw noSuchOrganization(orgId);
  return {
    tier: row.tier,
    // Billing periods belong to the payment provider, which Rally does not run: every tier is active.
    status: 'active',
    member_limit: row.member_limit,
    members_used: row.members_used,
    api_key_limit: row.api_key_limit,
    current_period_end: null,
  };
}

/** Sets the tier by slug; an upgrade records payment.completed in the same transaction. */
export async function setTier(db: DatabasePool, slug: string, tier: OrganizationTier) {
  return db.transaction(async (tx) => {
    const org = await tx.maybeOne(sql.type(z.object({ id: z.string(), slug: z.string(), tier: z.string() }))`
      SELECT id, slug, tier FROM organizations WHERE slug = ${slug.toLowerCase()} FOR UPDATE
    `);
    if (!org) throw new NotFound(`There is no organization with the slug ${slug}.`);
    const before = await tierLimits(tx, org.tier);
    const after = await tierLimits(tx, tier);
    await tx.query(sql.typeAlias('void')`UPDATE organizations SET tier = ${tier}, tier_changed_at = now(), updated_at = now() WHERE id = ${org.id}`);
    const upgraded = after.rank > before.rank;
    if (upgraded) {
      await recordEvent(tx, {
        type: 'payment.completed',
        actor: { type: 'system', id: null },
        data: { organization_id: org.id, organization_slug: org.slug, previous_tier: before.tier, tier: after.tier },
      });
    }
    return { organization_id: org.id, slug: org.slug, previous_tier: before.tier, tier: after.tier, upgraded };
  });
}
