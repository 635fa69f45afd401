// An organization's petitions, newest first, as the caller may read them: everyone sees the public,
// published ones; a creator also sees their own; the organization's owner and admins, who manage its
// petitions (core/petitions/policy.ts canManage), see all of them.
import { Type } from '@sinclair/typebox';
import type { CommonQueryMethods } from 'slonik';
import { sql } from '../../db/sql.ts';
import { createCursorCodec, keysetPage, recencyKey } from '../pagination/keyset.ts';
import { listedTo, type Viewer } from '../petitions/policy.ts';
import { PETITION_SELECT, PetitionRow } from '../petitions/queries.ts';
import { isOrganizationAdmin, noSuchOrganization } from './roles.ts';
import { z } from 'zod';

export const organizationPetitionCursor = createCursorCodec(
  Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]),
  'organization-petitions',
);

export async function listOrganizationPetitions(
  db: CommonQueryMethods,
  orgId: string,
  viewerId: string | undefined,
  options: { cursor?: string; limit: number },
) {
  const after = organizationPetitionCursor.decode(options.cursor);
  const exists = await db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM organizations WHERE id = ${orgId}`);
  if (!exists) throw noSuchOrganization(orgId);
  // The list rule, for a viewer who administers this organization (if they do) and nothing else.
  const administers = await isOrganizationAdmin(db, orgId, viewerId);
  const viewer: Viewer = { userId: viewerId ?? null, role: 'user', administeredOrganizationIds: administers ? [orgId] : [] };
  const keyset = keysetPage(recencyKey('p'), after, 'desc', options.limit);
  return db.any(sql.type(PetitionRow)`
    ${PETITION_SELECT}
    WHERE p.org_id = ${orgId} AND ${listedTo(viewer)} AND ${keyset.where}
    ${keyset.orderAndLimit}
  `);
}
