// Events for tests, written the way the API writes them: a petition row for an owner, then
// recordEvent in a transaction, so the dispatcher sees exactly what production code would produce.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { recordEvent, type Actor, type EventType } from '../../core/events/record-event.ts';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from './environment.ts';

export async function createPetitionRow(creatorId: string, title = 'A petition for the webhook tests'): Promise<string> {
  return testEnvironment().db.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO petitions (slug, title, description, creator_id, status)
    VALUES (${`test-${randomUUID()}`}, ${title}, ${'A description long enough to satisfy the fifty character minimum rule.'}, ${creatorId}, 'active')
    RETURNING id
  `);
}

export async function emitEvent(
  petitionId: string,
  type: EventType = 'signature.created',
  data: Record<string, unknown> = {},
  actor: Actor = { type: 'system', id: null },
): Promise<string> {
  return testEnvironment().db.transaction((tx) => recordEvent(tx, { type, actor, petitionId, data: { petition_id: petitionId, ...data } }));
}

/** Polls until `check` returns a value other than undefined; fails with the last value seen. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 30_000, what = 'the condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
