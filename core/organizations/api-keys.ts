// An organization's API keys belong to its service user (made with the first key), so they act as an admin of it whoever created them: removing that admin
// breaks nothing, and deleting the organization revokes them. Shapes, prefixes, scopes and rotation are those of personal keys (core/api-keys).
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { insertApiKey } from '../api-keys/queries.ts';
import type { NewApiKey } from '../api-keys/secrets.ts';
import { NotFound, PaymentRequired } from '../errors/domain-error.ts';
import { withRandomSuffix } from '../slugs.ts';
import { lockOrganization } from './queries.ts';
import { ADMINS, assertOrganizationRole, noSuchOrganization } from './roles.ts';
import { tierLimits } from './tiers.ts';

/** The identity issuer of organizations' service users: no identity provider's, so nobody logs in as one. */
export const ORGANIZATION_ISSUER = 'rally:organization';

const ServiceUser = z.object({ service_user_id: z.string().nullable(), slug: z.string(), name: z.string() });

/** The user that holds the organization's keys, for an owner or admin; null while it has no keys. */
export async function organizationKeyHolder(db: CommonQueryMethods, orgId: string, callerId: string): Promise<string | null> {
  await assertOrganizationRole(db, orgId, callerId, ADMINS, 'manage its API keys');
  const org = await db.maybeOne(sql.type(z.object({ service_user_id: z.string().nullable() }))`SELECT service_user_id FROM organizations WHERE id = ${orgId}`);
  // Gone since the role check: the organization was deleted in between.
  if (!org) throw noSuchOrganization(orgId);
  return org.service_user_id;
}

export async function requireKeyHolder(db: CommonQueryMethods, orgId: string, callerId: string, keyId: string): Promise<string> {
  const holder = await organizationKeyHolder(db, orgId, callerId);
  if (!holder) throw new NotFound(`The organization has no API key ${keyId}.`);
  return holder;
}

async function ensureServiceUser(tx: CommonQueryMethods, orgId: string): Promise<string> {
  const org = await tx.one(sql.type(ServiceUser)`SELECT service_user_id, slug, name FROM organizations WHERE id = ${orgId}`);
  if (org.service_user_id) return org.service_user_id;
  const userId = await tx.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug, email_verified)
    VALUES (${ORGANIZATION_ISSUER}, ${orgId}, ${`org-${orgId}@organizations.rally.invalid`}, ${org.name}, ${withRandomSuffix(`org-${org.slug}`)}, true)
    RETURNING id
  `);
  await tx.query(sql.typeAlias('void')`UPDATE organizations SET service_user_id = ${userId} WHERE id = ${orgId}`);
  return userId;
}

/**
 * Creates a key within the tier's api_key_limit (402 api_key_limit_reached beyond it).
 * Each key records its creator (created_by): the owner and admins are told to rotate it when that person leaves
 * or stops being an admin (key-creators.ts), and it is refused while that person is suspended.
 */
export async function createOrganizationKey(
  db: DatabasePool,
  orgId: string,
  callerId: string,
  input: { name: string; scope: string; environment: string; key: NewApiKey; createdBy: string | null },
) {
  return db.transaction(async (tx) => {
    const org = await lockOrganization(tx, orgId);
    if (!org) throw noSuchOrganization(orgId);
    await assertOrganizationRole(tx, orgId, callerId, ADMINS, 'create API keys');
    const holder = await ensureServiceUser(tx, orgId);
    const limits = await tierLimits(tx, org.tier);
    const active = await tx.oneFirst(sql.type(z.object({ active: z.number() }))`
      SELECT count(*)::int AS active FROM api_keys WHERE user_id = ${holder} AND revoked_at IS NULL AND expires_at IS NULL
    `);
    if (limits.api_key_limit !== null && active >= limits.api_key_limit) {
      throw new PaymentRequired(`The ${org.tier} tier allows ${limits.api_key_limit} active API keys (api_key_limit); revoke one or move to a higher tier.`, {
        code: 'api_key_limit_reached',
      });
    }
    return insertApiKey(tx, { userId: holder, ...input });
  });
}

/** Deleting the organization revokes its keys at once, in the deleting transaction. */
export async function revokeOrganizationKeys(tx: CommonQueryMethods, orgId: string): Promise<void> {
  await tx.query(sql.typeAlias('void')`
    UPDATE api_keys SET revoked_at = now()
    WHERE revoked_at IS NULL AND user_id = (SELECT service_user_id FROM organizations WHERE id = ${orgId})
  `);
}
