// Reading and removing signatures. Lists are keyset-paginated on (created_at, id).
import { randomInt } from 'node:crypto';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { recordEvent, type Actor } from '../events/record-event.ts';
import { sql } from '../../db/sql.ts';
import { afterPosition, keysetPage, recencyKey } from '../pagination/keyset.ts';
import { ANONYMOUS, listedTo } from '../petitions/policy.ts';
import { liveSignatureCount } from '../petitions/queries.ts';
import { SIGNATURE_EXPORT_FIELDS } from '../petitions/export.ts';
import { PUBLIC_USER_JSON, PublicUserRow } from '../public-user.ts';
import { COUNTER_SHARDS } from './sign.ts';

export const SignatureRow = z.object({
  id: z.string(),
  comment: z.string().nullable(),
  is_anonymous: z.boolean(),
  display_location: z.string().nullable(),
  created_at: z.string(),
  user: PublicUserRow.nullable(),
});
export type SignatureRow = z.infer<typeof SignatureRow>;

export function listSignatures(db: CommonQueryMethods, petitionId: string, after: readonly [string, string] | undefined, limit: number) {
  const keyset = keysetPage(recencyKey('s'), after, 'desc', limit);
  return db.any(sql.type(SignatureRow)`
    SELECT s.id, s.comment, s.is_anonymous, s.display_location, s.created_at,
      CASE WHEN s.is_anonymous THEN NULL ELSE ${PUBLIC_USER_JSON} END AS user
    FROM signatures s LEFT JOIN users u ON u.id = s.user_id
    WHERE s.petition_id = ${petitionId}
      AND ${keyset.where}
    ${keyset.orderAndLimit}
  `);
}

/** Removes a user's signature with its share of the count and a signature.removed event; the new count, or null. */
export async function removeSignature(db: DatabasePool, petitionId: string, userId: string, actor: Actor): Promise<number | null> {
  return db.transaction(async (tx) => {
    const removed = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
      DELETE FROM signatures WHERE petition_id = ${petitionId} AND user_id = ${userId} RETURNING id
    `);
    if (!removed) return null;
    // Any shard will do: the count is the sum of them all.
    await tx.query(sql.typeAlias('void')`
      INSERT INTO signature_counters (petition_id, shard, count) VALUES (${petitionId}, ${randomInt(COUNTER_SHARDS)}, -1)
      ON CONFLICT ON CONSTRAINT signature_counters_pkey DO UPDATE SET count = signature_counters.count - 1
    `);
    await recordEvent(tx, { type: 'signature.removed', actor, petitionId, data: { id: removed.id, petition_id: petitionId } });
    return liveSignatureCount(tx, petitionId);
  });
}

export const GeoRow = z.object({ lat: z.number(), lng: z.number(), city: z.string(), region: z.string(), country: z.string(), count: z.number() });

// The global map counts only signatures anyone may see: of public, published petitions whose
// signatures are public (the one-petition map checks its petition instead).
const GLOBALLY_VISIBLE = sql.fragment`AND EXISTS (
  SELECT FROM petitions p WHERE p.id = s.petition_id AND ${listedTo(ANONYMOUS)} AND p.signature_privacy = 'public')`;

export function geoPoints(db: CommonQueryMethods, petitionId: string | null, hours: number, after: readonly [number, string] | undefined, limit: number) {
  const keyset = keysetPage(
    [
      [sql.fragment`count`, 'int8'],
      [sql.fragment`city || '|' || region || '|' || country`, 'text'],
    ],
    after,
    'desc',
    limit,
  );
  return db.any(sql.type(GeoRow)`
    SELECT * FROM (
      SELECT avg(latitude) AS lat, avg(longitude) AS lng, city, COALESCE(region, '') AS region, COALESCE(country, '') AS country, count(*)::int AS count
      FROM signatures s
      WHERE created_at > now() - make_interval(hours => ${hours}) AND city IS NOT NULL AND latitude IS NOT NULL
        ${petitionId ? sql.fragment`AND petition_id = ${petitionId}` : GLOBALLY_VISIBLE}
      GROUP BY city, region, country
    ) AS places
    WHERE ${keyset.where}
    ${keyset.orderAndLimit}
  `);
}

export const ExportRow = z.object({
  id: z.string(),
  signer_name: z.string().nullable(),
  signer_email: z.string().nullable(),
  ...SIGNATURE_EXPORT_FIELDS,
  created_at: z.string(),
});

/** For the creator's export: names and emails of signers who did not sign anonymously. */
export function exportBatch(db: CommonQueryMethods, petitionId: string, after: readonly [string, string] | undefined, size: number) {
  const keyset = afterPosition(recencyKey('s'), after, 'asc');
  return db.any(sql.type(ExportRow)`
    SELECT s.id, CASE WHEN s.is_anonymous THEN NULL ELSE u.display_name END AS signer_name,
      CASE WHEN s.is_anonymous THEN NULL ELSE u.email END AS signer_email,
      s.comment, s.is_anonymous, s.display_location, s.city, s.country, s.created_at
    FROM signatures s LEFT JOIN users u ON u.id = s.user_id
    WHERE s.petition_id = ${petitionId}
      AND ${keyset.where}
    ORDER BY ${keyset.orderBy}
    LIMIT ${size}
  `);
}
