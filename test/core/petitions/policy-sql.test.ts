// The SQL half of the petition policy, run against real PostgreSQL over the same matrix as the
// predicates: every query that filters petitions uses these fragments.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import { ANONYMOUS, knownTo, listedTo, manageableBy, visibleTo, type Viewer } from '../../../core/petitions/policy.ts';
import { isVisibleTo } from '../../../core/petitions/queries.ts';
import { testEnvironment } from '../../support/environment.ts';
import { insertUserRow } from '../../support/rows.ts';
import { ACCESS_CODE, EXPECTED, outcomeCell, PETITION_SHAPES, PETITIONS, VIEWERS, type PetitionKind, type ViewerKind } from './policy-matrix.ts';

const Outcome = z.object({ knows: z.boolean(), read: z.boolean(), read_with_code: z.boolean(), listed: z.boolean(), manages: z.boolean() });

describe('petition policy SQL (visibleTo, listedTo, knownTo, manageableBy)', () => {
  const orgId = randomUUID();
  const ids = {} as Record<PetitionKind, string>;
  const viewers = {} as Record<ViewerKind, Viewer>;

  const insertUser = (role: 'user' | 'admin') => insertUserRow('policy', role);

  before(async () => {
    const { db } = testEnvironment();
    // The organization the petitions belong to, so the org-admin viewer has something to administer.
    await db.query(sql.typeAlias('void')`INSERT INTO organizations (id, slug, name) VALUES (${orgId}, ${`policy-${orgId}`}, ${`Policy test ${orgId}`})`);
    const creatorId = await insertUser('user');
    Object.assign(viewers, {
      anonymous: ANONYMOUS,
      signer: { userId: await insertUser('user'), role: 'user', administeredOrganizationIds: [] },
      creator: { userId: creatorId, role: 'user', administeredOrganizationIds: [] },
      platformAdmin: { userId: await insertUser('admin'), role: 'admin', administeredOrganizationIds: [] },
      orgAdmin: { userId: await insertUser('user'), role: 'user', administeredOrganizationIds: [orgId] },
    } satisfies Record<ViewerKind, Viewer>);
    for (const kind of PETITIONS) {
      const shape = PETITION_SHAPES[kind];
      ids[kind] = await db.oneFirst(sql.type(z.object({ id: z.string() }))`
        INSERT INTO petitions (slug, title, description, creator_id, org_id, status, visibility, access_code, deleted_at)
        VALUES (${`policy-${kind}-${randomUUID()}`}, ${`Policy matrix ${kind}`}, ${'A petition of the policy matrix test, long enough for the check.'},
          ${creatorId}, ${orgId}, ${shape.status}, ${shape.visibility}, ${shape.visibility === 'private' ? ACCESS_CODE : null},
          ${shape.deleted ? sql.fragment`now()` : null})
        RETURNING id
      `);
    }
  });

  for (const viewerKind of VIEWERS) {
    for (const petitionKind of PETITIONS) {
      it(`${viewerKind} × ${petitionKind}: ${EXPECTED[viewerKind][petitionKind]}`, async () => {
        const viewer = viewers[viewerKind];
        const outcome = await testEnvironment().db.one(sql.type(Outcome)`
          SELECT (${knownTo(viewer)}) IS TRUE AS knows, (${visibleTo(viewer)}) IS TRUE AS read,
            (${visibleTo(viewer, ` ${ACCESS_CODE.toLowerCase()} `)}) IS TRUE AS read_with_code,
            (${listedTo(viewer)}) IS TRUE AS listed, (${manageableBy(viewer)}) IS TRUE AS manages
          FROM petitions p WHERE p.id = ${ids[petitionKind]}
        `);
        expect(outcomeCell({ ...outcome, readWithCode: outcome.read_with_code })).to.equal(EXPECTED[viewerKind][petitionKind]);
        expect(await isVisibleTo(testEnvironment().db, viewer, ids[petitionKind])).to.equal(EXPECTED[viewerKind][petitionKind][1] === 'R');
      });
    }
  }
});
