// The click on a confirmation link: the guest signature becomes a signature, through the same
// group-commit batcher, statement, counter, milestones and outbox events as a signature of the API
// (core/signatures/sign.ts); nothing here inserts a signature itself. The batch's guest signatures are
// marked confirmed by one statement inside its transaction (the batcher's SharedWork seam), so a
// signature and its confirmation commit together; a second click finds it confirmed.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { DomainError } from '../errors/domain-error.ts';
import type { SignBatcher } from '../signatures/sign-batcher.ts';
import type { SharedWork, SignatureInput, SignResult } from '../signatures/sign.ts';
import { findOrCreateGuestUser } from '../users/guests.ts';
import { GUEST_SIGNATURE_STATUSES } from '../vocabulary.ts';
import { parseReference, tokenMatches } from './tokens.ts';

const Pending = z.object({
  id: z.string(),
  petition_id: z.string(),
  slug: z.string(),
  title: z.string(),
  email: z.string(),
  display_name: z.string(),
  comment: z.string().nullable(),
  is_anonymous: z.boolean(),
  source: z.string().nullable(),
  network_hash: z.instanceof(Buffer).nullable(),
  token_hash: z.instanceof(Buffer),
  status: z.enum(GUEST_SIGNATURE_STATUSES),
  expired: z.boolean(),
});

export type ConfirmOutcome =
  | { kind: 'signed'; slug: string; title: string; email: string; result: SignResult }
  | { kind: 'already_confirmed' | 'already_signed' | 'expired'; slug: string; title: string; email: string }
  | { kind: 'refused'; slug: string; title: string; reason: string }
  | { kind: 'invalid' };

/** The guest signature a link names, if its token is the right one (constant-time). Nothing is changed. */
export async function findByReference(db: CommonQueryMethods, reference: string) {
  const parsed = parseReference(reference);
  if (!parsed) return null;
  const row = await db.maybeOne(sql.type(Pending)`
    SELECT g.id, g.petition_id, p.slug, p.title, g.email, g.display_name, g.comment, g.is_anonymous, g.source, g.network_hash, g.token_hash, g.status,
      g.expires_at <= now() AS expired
    FROM guest_signatures g JOIN petitions p ON p.id = g.petition_id
    WHERE g.id = ${parsed.id}
  `);
  return row && tokenMatches(parsed.token, row.token_hash) ? row : null;
}

const markAlreadySigned = (db: CommonQueryMethods, id: string) =>
  db.query(sql.typeAlias('void')`
    UPDATE guest_signatures SET status = 'already_signed', confirmed_at = now(), email_due = false WHERE id = ${id} AND status = 'pending'
  `);

/**
 * The batch's guest signatures marked confirmed with their signatures, in one statement inside the
 * batch's transaction. One that is no longer pending (another click confirmed it meanwhile) fails the
 * batch: it is then written one request at a time, and only that click fails (see confirmGuestSignature).
 */
const markConfirmedTogether: SharedWork = async (tx, requests) => {
  const signed = requests.flatMap(({ key, answer }) => (answer.ok ? [{ id: key, signatureId: answer.result.id }] : []));
  if (signed.length === 0) return;
  const marked = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`
    UPDATE guest_signatures g SET status = 'confirmed', confirmed_at = now(), signature_id = m.signature_id, email_due = false
    FROM unnest(${sql.array(
      signed.map((row) => row.id),
      'uuid',
    )}, ${sql.array(
      signed.map((row) => row.signatureId),
      'uuid',
    )}) AS m(id, signature_id)
    WHERE g.id = m.id AND g.status = 'pending'
    RETURNING g.id
  `);
  if (marked.length !== signed.length) throw new Error('guest signature confirmed concurrently');
};

export type ConfirmContext = { db: DatabasePool; signatures: SignBatcher; place: SignatureInput['place'] };

export async function confirmGuestSignature(deps: ConfirmContext, reference: string): Promise<ConfirmOutcome> {
  const pending = await findByReference(deps.db, reference);
  if (!pending) return { kind: 'invalid' };
  const { slug, title, email } = pending;
  if (pending.status === 'confirmed') return { kind: 'already_confirmed', slug, title, email };
  if (pending.status === 'already_signed') return { kind: 'already_signed', slug, title, email };
  if (pending.status === 'expired' || pending.expired) return { kind: 'expired', slug, title, email };

  const signer = await findOrCreateGuestUser(deps.db, pending.email, pending.display_name);
  if (signer.suspended) return { kind: 'refused', slug, title, reason: 'This account is suspended and cannot sign.' };
  try {
    const result = await deps.signatures.sign({
      input: {
        petitionId: pending.petition_id,
        userId: signer.id,
        viewer: { userId: signer.id, role: 'user', administeredOrganizationIds: [] },
        source: pending.source,
        networkHash: pending.network_hash,
        actor: { type: 'user', id: signer.id },
        comment: pending.comment,
        isAnonymous: pending.is_anonymous,
        displayLocation: null,
        place: deps.place,
        referrerSlug: null,
        accessCode: null,
      },
      shared: { work: markConfirmedTogether, key: pending.id },
    });
    return { kind: 'signed', slug, title, email, result };
  } catch (error) {
    if (!(error instanceof DomainError)) {
      // The concurrent click won: its page says signed; this one says confirmed.
      if ((await findByReference(deps.db, reference))?.status === 'confirmed') return { kind: 'already_confirmed', slug, title, email };
      throw error;
    }
    if (error.code !== 'already_signed') return { kind: 'refused', slug, title, reason: error.message };
    // The same link clicked twice at once: the other click's signature is this one.
    if ((await findByReference(deps.db, reference))?.status === 'confirmed') return { kind: 'already_confirmed', slug, title, email };
    await markAlreadySigned(deps.db, pending.id);
    return { kind: 'already_signed', slug, title, email };
  }
}
