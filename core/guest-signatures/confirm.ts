// The click on a confirmation link: the guest signature becomes a signature through the same group-commit batcher, statement, counter, milestones and outbox
// events as an API signature (core/signatures/sign.ts); nothing here inserts a signature itself. Confirmations come in batches too (confirm-batcher.ts), so a
// confirmation adds no statement of its own to its signature's batch.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { prepared, sql, unnestRows } from '../../db/sql.ts';
import { DomainError } from '../errors/domain-error.ts';
import type { BatchAnswer } from '../../platform/group-commit.ts';
import type { SignBatcher } from '../signatures/sign-batcher.ts';
import type { SharedWork, SignResult } from '../signatures/sign.ts';
import type { SignatureInput } from '../signatures/signature-input.ts';
import { findOrCreateGuestUsers, type GuestSigner } from '../users/guests.ts';
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

type Pending = z.infer<typeof Pending>;

/** The guest signature each link names, if its token is the right one (constant-time), in order. Nothing is changed. */
export async function findByReferences(db: CommonQueryMethods, references: readonly string[]): Promise<(Pending | null)[]> {
  const parsed = references.map(parseReference);
  const ids = [...new Set(parsed.flatMap((reference) => (reference ? [reference.id] : [])))];
  if (ids.length === 0) return references.map(() => null);
  const rows = await db.any(
    prepared(
      'rally_guest_links',
      sql.type(Pending)`
    SELECT g.id, g.petition_id, p.slug, p.title, g.email, g.display_name, g.comment, g.is_anonymous, g.source, g.network_hash, g.token_hash, g.status,
      g.expires_at <= now() AS expired
    FROM guest_signatures g JOIN petitions p ON p.id = g.petition_id
    WHERE g.id = ANY(${sql.array(ids, 'uuid')})
  `,
    ),
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return parsed.map((reference) => {
    const row = reference && byId.get(reference.id);
    return row && tokenMatches(reference.token, row.token_hash) ? row : null;
  });
}

export const findByReference = async (db: CommonQueryMethods, reference: string) => (await findByReferences(db, [reference]))[0]!;

const markAlreadySigned = (db: CommonQueryMethods, id: string) =>
  db.query(sql.typeAlias('void')`
    UPDATE guest_signatures SET status = 'already_signed', confirmed_at = now(), email_due = false WHERE id = ${id} AND status = 'pending'
  `);

/**
 * The batch's guest signatures marked confirmed with their signatures, in one statement inside the
 * batch's transaction. One that is no longer pending (another click confirmed it meanwhile) fails the
 * batch: it is then written one request at a time, and only that click fails (see confirmGuestSignature).
 * The batch's guest signatures are marked confirmed by one statement inside its transaction (the batcher's
 * SharedWork seam), so a signature and its confirmation commit together; a second click finds it confirmed.
 */
const markConfirmedTogether: SharedWork = async (tx, requests) => {
  const signed = requests.flatMap(({ key, answer }) => (answer.ok ? [{ id: key, signatureId: answer.result.id }] : []));
  if (signed.length === 0) return;
  const marked = await tx.anyFirst(
    prepared(
      'rally_guest_confirmed',
      sql.type(z.object({ id: z.string() }))`
    UPDATE guest_signatures g SET status = 'confirmed', confirmed_at = now(), signature_id = m.signature_id, email_due = false
    FROM ${unnestRows(signed, 'm', { id: ['uuid', (row) => row.id], signature_id: ['uuid', (row) => row.signatureId] })}
    WHERE g.id = m.id AND g.status = 'pending'
    RETURNING g.id
  `,
    ),
  );
  if (marked.length !== signed.length) throw new Error('guest signature confirmed concurrently');
};

export type ConfirmContext = { db: DatabasePool; signatures: SignBatcher };
export type ConfirmRequest = { reference: string; place: SignatureInput['place'] };

/** What a link says before anything is signed: an outcome already, or the pending signature to sign. */
function verdict(pending: Pending | null): ConfirmOutcome | null {
  if (!pending) return { kind: 'invalid' };
  const { slug, title, email } = pending;
  if (pending.status === 'confirmed') return { kind: 'already_confirmed', slug, title, email };
  if (pending.status === 'already_signed') return { kind: 'already_signed', slug, title, email };
  if (pending.status === 'expired' || pending.expired) return { kind: 'expired', slug, title, email };
  return null;
}

/**
 * Confirms a batch of links, each with its own answer, in order: its outcome, or the error only it
 * met (the others' signatures are committed by then and keep their answers).
 * A batch's links are looked up by one statement and their signers found or created by another.
 */
export async function confirmGuestSignatures(deps: ConfirmContext, requests: readonly ConfirmRequest[]): Promise<BatchAnswer<ConfirmOutcome>[]> {
  const found = await findByReferences(
    deps.db,
    requests.map((request) => request.reference),
  );
  const verdicts = found.map(verdict);
  const toSign = found.flatMap((pending, index) => (pending && !verdicts[index] ? [{ pending, index }] : []));
  const signers = await findOrCreateGuestUsers(
    deps.db,
    toSign.map(({ pending }) => ({ email: pending.email, displayName: pending.display_name })),
  );
  const signing = await Promise.allSettled(toSign.map(({ pending, index }, at) => sign(deps, requests[index]!, pending, signers[at]!)));
  const signed = new Map(toSign.map(({ index }, at) => [index, signing[at]!]));
  return verdicts.map((known, index): BatchAnswer<ConfirmOutcome> => {
    if (known) return { ok: true, result: known };
    const settled = signed.get(index)!;
    return settled.status === 'fulfilled' ? { ok: true, result: settled.value } : { ok: false, error: settled.reason };
  });
}

async function sign(deps: ConfirmContext, { reference, place }: ConfirmRequest, pending: Pending, signer: GuestSigner): Promise<ConfirmOutcome> {
  const { slug, title, email } = pending;
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
        place,
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
