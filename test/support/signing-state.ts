// What the database holds about one petition's signatures and the events of one webhook endpoint,
// read straight from PostgreSQL so crash tests can compare it with what clients and receivers saw.
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from './environment.ts';

const EventRow = z.object({ id: z.string(), type: z.string(), threshold: z.number().nullable() });

export async function storedSigningState(petitionId: string, endpointId: string) {
  const { db } = testEnvironment();
  const [signerIds, events, milestones, deliveries] = await Promise.all([
    db.anyFirst(sql.type(z.object({ user_id: z.string() }))`SELECT user_id FROM signatures WHERE petition_id = ${petitionId}`),
    db.any(sql.type(EventRow)`
      SELECT id, type, (data->>'milestone')::int AS threshold FROM events
      WHERE petition_id = ${petitionId} AND type IN ('signature.created', 'signature.milestone')
    `),
    db.any(
      sql.type(
        z.object({ threshold: z.number(), signature_id: z.string() }),
      )`SELECT threshold::int, signature_id FROM petition_milestones WHERE petition_id = ${petitionId}`,
    ),
    db.any(sql.type(z.object({ id: z.string(), status: z.string(), started: z.boolean() }))`
      SELECT id, status, started_at IS NOT NULL AS started FROM webhook_deliveries WHERE endpoint_id = ${endpointId}
    `),
  ]);
  return {
    signerIds: [...signerIds],
    events: [...events],
    milestoneThresholds: milestones.map((row) => row.threshold),
    milestoneSignatureIds: milestones.map((row) => row.signature_id),
    deliveries: [...deliveries],
  };
}
