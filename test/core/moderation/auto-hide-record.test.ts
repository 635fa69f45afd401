// Auto-hide hides a reported target and records why (moderation.auto_hidden, with the count of
// reporters). The two are separate steps of one activity: when it stops between them, its retry
// finds the target hidden already, and the record must still be written, once.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import { hideIfReportedEnough } from '../../../core/moderation/actions.ts';
import { hideTarget } from '../../../core/moderation/effects.ts';
import { SYSTEM_AUDIT } from '../../../core/audit/audit-log.ts';
import type { PetitionWorkflows } from '../../../core/petitions/lifecycle.ts';
import { testEnvironment } from '../../support/environment.ts';
import { createTestUser } from '../../support/identity.ts';

describe('auto-hide and its record', () => {
  // A user target never reaches a petition workflow.
  const workflows = {} as PetitionWorkflows;
  const records = (userId: string) =>
    testEnvironment().db.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM audit_logs WHERE action = 'moderation.auto_hidden' AND target_id = ${userId}`);

  it('records a hiding whose record a stopped attempt left out, and only once', async () => {
    const { db } = testEnvironment();
    const user = await createTestUser();
    const target = { type: 'user', id: user.id } as const;
    // The first attempt hid the target and stopped before recording.
    expect(await hideTarget({ db, workflows }, target, SYSTEM_AUDIT)).to.equal(true);
    expect(await records(user.id)).to.equal(0);
    const settings = { db, workflows, threshold: 0, minAccountAgeMs: 0 };
    expect((await hideIfReportedEnough(settings, target)).hidden).to.equal(false);
    expect(await records(user.id)).to.equal(1);
    await hideIfReportedEnough(settings, target);
    expect(await records(user.id)).to.equal(1);
  });
});
