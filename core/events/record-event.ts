// Writing to the transactional outbox. Call recordEvent with the transaction that makes the change,
// so the event exists exactly when the change does; the dispatcher delivers it afterwards.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import type { ActorType, EventType } from '../vocabulary.ts';

export { EVENT_TYPES, type EventType } from '../vocabulary.ts';

export type Actor = { type: ActorType; id: string | null };

export type NewEvent = { type: EventType; actor: Actor; petitionId?: string | null; data: Record<string, unknown> };

// Tells the dispatcher there is work, so it need not wait for its next poll.
export const EVENTS_CHANNEL = 'rally_events';

export async function recordEvent(tx: CommonQueryMethods, event: NewEvent): Promise<string> {
  const id = await tx.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO events (type, actor_type, actor_id, petition_id, data)
    VALUES (${event.type}, ${event.actor.type}, ${event.actor.id}, ${event.petitionId ?? null}, ${sql.jsonb(event.data as never)})
    RETURNING id
  `);
  await tx.query(sql.typeAlias('void')`SELECT FROM pg_notify(${EVENTS_CHANNEL}, '')`);
  return id;
}

/** The actor of a request, as events and webhook payloads name it in `triggered_by`. */
export function actorOf(principal: { kind: 'user' | 'api_key' | 'oauth_app'; userId: string; apiKeyId?: string; clientId?: string }): Actor {
  if (principal.kind === 'oauth_app') return { type: 'oauth_app', id: principal.clientId ?? null };
  return principal.kind === 'api_key' ? { type: 'api_key', id: principal.apiKeyId ?? null } : { type: 'user', id: principal.userId };
}
