// Writing to the transactional outbox. Call recordEvent with the transaction that makes the change,
// so the event exists exactly when the change does; the dispatcher delivers it afterwards.
import type { CommonQueryMethods, FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import type { ActorType, EventType } from '../vocabulary.ts';
import { traceCarrier } from '../../platform/trace-context.ts';

export { EVENT_TYPES, type EventType } from '../vocabulary.ts';

export type Actor = { type: ActorType; id: string | null };

export type NewEvent = { type: EventType; actor: Actor; petitionId?: string | null; data: Record<string, unknown> };

// Tells the dispatcher there is work, so it need not wait for its next poll (worker/event-dispatcher.ts).
export const EVENTS_CHANNEL = 'rally_events';

/** Each column of an outbox row as SQL: parameters, or expressions over the statement's own rows. */
export type EventColumns = {
  type: FragmentSqlToken;
  actorType: FragmentSqlToken;
  actorId: FragmentSqlToken;
  petitionId: FragmentSqlToken;
  data: FragmentSqlToken;
};

/**
 * THE outbox insert, as a fragment that statements may embed (the signing statement does, in a CTE,
 * to stay one round trip). `from` names the rows the columns read, if any; RETURNING id.
 */
export function insertEvent(columns: EventColumns, from?: FragmentSqlToken): FragmentSqlToken {
  // The trace of the request writing the event, so its deliveries join that trace (NULL untraced).
  const carrier = traceCarrier();
  return sql.fragment`
    INSERT INTO events (type, actor_type, actor_id, petition_id, data, trace_context)
    SELECT ${columns.type}, ${columns.actorType}, ${columns.actorId}, ${columns.petitionId}, ${columns.data}, ${carrier ? sql.jsonb(carrier) : null}::jsonb
    ${from ? sql.fragment`FROM ${from}` : sql.fragment``}
    RETURNING id`;
}

/** Wakes the dispatcher; NOTIFY is delivered at commit, so it never wakes it for a rolled-back event. */
export const NOTIFY_DISPATCHER = sql.fragment`pg_notify(${EVENTS_CHANNEL}, '')`;

export async function recordEvent(tx: CommonQueryMethods, event: NewEvent): Promise<string> {
  const id = await tx.oneFirst(
    sql.type(z.object({ id: z.string() }))`${insertEvent({
      type: sql.fragment`${event.type}::text`,
      actorType: sql.fragment`${event.actor.type}::text`,
      actorId: sql.fragment`${event.actor.id}::text`,
      petitionId: sql.fragment`${event.petitionId ?? null}::uuid`,
      data: sql.fragment`${sql.jsonb(event.data as never)}`,
    })}`,
  );
  await tx.query(sql.typeAlias('void')`SELECT FROM ${NOTIFY_DISPATCHER}`);
  return id;
}

/** The actor of a request, as events and webhook payloads name it in `triggered_by`. */
export function actorOf(principal: { kind: 'user' | 'api_key' | 'oauth_app'; userId: string; apiKeyId?: string; clientId?: string }): Actor {
  if (principal.kind === 'oauth_app') return { type: 'oauth_app', id: principal.clientId ?? null };
  return principal.kind === 'api_key' ? { type: 'api_key', id: principal.apiKeyId ?? null } : { type: 'user', id: principal.userId };
}
