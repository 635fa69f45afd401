// The two halves of core/petitions/visibility.ts give the same answer: for every status × visibility × deleted-or-not, in real PostgreSQL, each rule's SQL
// fragment agrees with its predicate for an anonymous visitor, a stranger, the creator, a platform admin and an organization admin (with and without the access
// code). policy-sql.test.ts checks both against the hand-written matrix.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import { fragment, holds, type PetitionAccessFacts, type RuleName, type Viewer } from '../../../core/petitions/visibility.ts';
import { testEnvironment } from '../../support/environment.ts';
import { insertUserRow } from '../../support/rows.ts';

const STATUSES = ['draft', 'active', 'closed', 'victory', 'under_review'] as const;
const VISIBILITIES = ['public', 'private', 'unlisted'] as const;
const RULES: RuleName[] = ['knows', 'reads', 'lists', 'manages', 'managed', 'reviewNotice'];
const CODE = 'QRST2345UV';

describe('petition visibility rules (core/petitions/visibility.ts): SQL and predicate agree', () => {
  const orgId = randomUUID();
  const viewers: Record<string, Viewer> = {};
  const rows: (PetitionAccessFacts & { id: string })[] = [];

  before(async () => {
    const { db } = testEnvironment();
    await db.query(sql.typeAlias('void')`INSERT INTO organizations (id, slug, name) VALUES (${orgId}, ${`visibility-${orgId}`}, ${`Visibility ${orgId}`})`);
    const creatorId = await insertUserRow('visibility');
    Object.assign(viewers, {
      anonymous: { userId: null, role: 'user', administeredOrganizationIds: [] },
      stranger: { userId: await insertUserRow('visibility'), role: 'user', administeredOrganizationIds: [] },
      creator: { userId: creatorId, role: 'user', administeredOrganizationIds: [] },
      platformAdmin: { userId: await insertUserRow('visibility', 'admin'), role: 'admin', administeredOrganizationIds: [] },
      orgAdmin: { userId: await insertUserRow('visibility'), role: 'user', administeredOrganizationIds: [orgId] },
    } satisfies Record<string, Viewer>);
    for (const status of STATUSES) {
      for (const visibility of VISIBILITIES) {
        for (const deleted of [false, true]) {
          const row = await db.one(sql.type(z.object({ id: z.string(), deleted_at: z.string().nullable() }))`
            INSERT INTO petitions (slug, title, description, creator_id, org_id, status, visibility, access_code, deleted_at)
            VALUES (${`visibility-${randomUUID()}`}, ${`Visibility ${status} ${visibility}`}, ${'A petition of the visibility agreement test, long enough.'},
              ${creatorId}, ${orgId}, ${status}, ${visibility}, ${visibility === 'private' ? CODE : null}, ${deleted ? sql.fragment`now()` : null})
            RETURNING id, deleted_at::text
          `);
          rows.push({
            id: row.id,
            creator_id: creatorId,
            org_id: orgId,
            status,
            visibility,
            access_code: visibility === 'private' ? CODE : null,
            deleted_at: row.deleted_at,
          });
        }
      }
    }
  });

  for (const viewerKind of ['anonymous', 'stranger', 'creator', 'platformAdmin', 'orgAdmin']) {
    for (const accessCode of [undefined, ` ${CODE.toLowerCase()} `]) {
      it(`${viewerKind}${accessCode ? ' with the access code' : ''}: every rule, every petition`, async () => {
        const viewer = viewers[viewerKind]!;
        const disagreements: string[] = [];
        for (const rule of RULES) {
          const ids = await testEnvironment().db.anyFirst(sql.type(z.object({ id: z.string() }))`
            SELECT p.id FROM petitions p WHERE p.id = ANY(${sql.array(
              rows.map((row) => row.id),
              'uuid',
            )}) AND ${fragment(rule, viewer, 'p', accessCode)}
          `);
          for (const row of rows) {
            const inSql = ids.includes(row.id);
            if (inSql !== holds(rule, viewer, row, accessCode))
              disagreements.push(`${rule} ${row.status}/${row.visibility}${row.deleted_at ? '/deleted' : ''}: SQL ${inSql}`);
          }
        }
        expect(disagreements).to.deep.equal([]);
      });
    }
  }

  it('renders under any table alias', async () => {
    const count = await testEnvironment().db.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM petitions AS listed WHERE listed.id = ANY(${sql.array(
        rows.map((row) => row.id),
        'uuid',
      )}) AND ${fragment('lists', viewers.anonymous!, 'listed')}
    `);
    expect(count)
      .to.equal(rows.filter((row) => holds('lists', viewers.anonymous!, row)).length)
      .and.to.equal(3);
  });
});
