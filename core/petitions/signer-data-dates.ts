// When an ended petition's signers' details were, or are due to be, deleted (issue 46): what a
// petition's answer and page say. The deleting itself is core/signatures/retention.ts.
import { ENDED_PETITION_STATUSES } from '../vocabulary.ts';

export type SignerDataDates = { signer_data_deleted_at: string | null; signer_data_deletion_due_at: string | null };

/**
 * When an ended petition's signers' details were deleted and when they are due to be: closed_at +
 * retentionMs for a closed or won petition; due is null while it runs or with retention `off` (null).
 */
export function signerDataDates(
  petition: { status: string; closed_at: string | null; signer_data_deleted_at: string | null },
  retentionMs: number | null,
): SignerDataDates {
  const ended = (ENDED_PETITION_STATUSES as readonly string[]).includes(petition.status);
  const due = ended && retentionMs !== null && petition.closed_at !== null ? new Date(Date.parse(petition.closed_at) + retentionMs).toISOString() : null;
  return { signer_data_deleted_at: petition.signer_data_deleted_at, signer_data_deletion_due_at: due };
}
