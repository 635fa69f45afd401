// What a person's export holds: one JSON file per kind of data Rally keeps about them (issue 46,
// GDPR articles 15 and 20). Secrets never leave: API keys appear by name and display prefix only,
// and network hashes and email keys (pseudonyms Rally derives for abuse checks) are left out.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import type { ZipEntry } from './zip.ts';

const Row = z.record(z.string(), z.unknown());
type Rows = readonly Record<string, unknown>[];

/** The files of the archive, by name, each a query on the person's id. */
function queries(userId: string) {
  return {
    'profile.json': sql.type(Row)`
      SELECT id, email, display_name, slug, bio, avatar_url, role, email_verified, notification_prefs,
             suspended_at, suspension_reason, suspended_until, created_at, updated_at
      FROM users WHERE id = ${userId}`,
    'signatures.json': sql.type(Row)`
      SELECT s.id, s.created_at AS signed_at, s.comment, s.is_anonymous, s.display_location, s.city, s.region, s.country,
             s.latitude, s.longitude, s.source,
             json_build_object('id', p.id, 'slug', p.slug, 'title', p.title, 'status', p.status) AS petition
      FROM signatures s JOIN petitions p ON p.id = s.petition_id
      WHERE s.user_id = ${userId} ORDER BY s.created_at, s.id`,
    'comments.json': sql.type(Row)`
      SELECT id, petition_id, parent_id, body, is_hidden, created_at, updated_at, deleted_at
      FROM comments WHERE user_id = ${userId} ORDER BY created_at, id`,
    'petitions.json': sql.type(Row)`
      SELECT id, slug, title, description, status, org_id, tags, image_url, signature_goal, visibility,
             location_city, location_region, location_country, signature_privacy, victory_message,
             created_at, updated_at, published_at, closed_at, deleted_at
      FROM petitions WHERE creator_id = ${userId} ORDER BY created_at, id`,
    'organizations.json': sql.type(Row)`
      SELECT o.id, o.slug, o.name, m.role, m.created_at AS member_since
      FROM organization_members m JOIN organizations o ON o.id = m.org_id
      WHERE m.user_id = ${userId} ORDER BY m.created_at, o.id`,
    'api-keys.json': sql.type(Row)`
      SELECT id, name, display_prefix, scope, environment, created_at, last_used_at, expires_at, revoked_at
      FROM api_keys WHERE user_id = ${userId} ORDER BY created_at, id`,
    'oauth-authorizations.json': sql.type(Row)`
      SELECT a.client_id, c.name AS app_name, a.consented_scopes, a.created_at, a.updated_at
      FROM oauth_authorizations a LEFT JOIN oauth_clients c ON c.client_id = a.client_id
      WHERE a.user_id = ${userId} ORDER BY a.created_at, a.client_id`,
    'notifications.json': sql.type(Row)`
      SELECT id, type, title, body, data, read_at, created_at, emailed_at
      FROM notifications WHERE user_id = ${userId} ORDER BY created_at, id`,
    'reports.json': sql.type(Row)`
      SELECT id, target_type, target_id, reason, description, status, action, resolved_at, created_at
      FROM reports WHERE reporter_id = ${userId} ORDER BY created_at, id`,
  };
}

export const EXPORT_FILES = Object.keys(queries('')) as readonly string[];

/** Every file of the person's export; run it in one REPEATABLE READ transaction so the files agree. */
export async function exportContents(db: CommonQueryMethods, userId: string): Promise<ZipEntry[]> {
  const entries: ZipEntry[] = [];
  for (const [name, query] of Object.entries(queries(userId))) {
    const rows: Rows = await db.any(query);
    const content = name === 'profile.json' ? (rows[0] ?? null) : rows;
    entries.push({ name, content: Buffer.from(`${JSON.stringify(content, null, 2)}\n`, 'utf8') });
  }
  return entries;
}
