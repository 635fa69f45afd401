// What one signing request asks to write: the signer, where they came from and what they add. Its own
// module because both the signing path (sign.ts) and its one statement (sign-statement.ts) read it.
import type { Actor } from '../events/record-event.ts';
import type { Viewer } from '../petitions/policy.ts';

export type SignatureInput = {
  petitionId: string;
  userId: string;
  /** The signer as the petition policy sees them (viewerOf the principal). */
  viewer: Viewer;
  /** Where the signer came from (embed, page, share:<slug>…), for the creator's traffic sources. */
  source?: string | null;
  /** Keyed hash of the signer's /24 or /64 (core/signatures/network-block.ts), for fraud investigation. */
  networkHash?: Buffer | null;
  /** The signing thresholds the signature passed (api/http/limits.ts): stored, never shown publicly (issue 44). */
  flags?: readonly string[] | null;
  actor: Actor;
  comment: string | null;
  isAnonymous: boolean;
  displayLocation: string | null;
  place: { city: string | null; region: string | null; country: string | null; latitude: number | null; longitude: number | null };
  referrerSlug: string | null;
  /** Needed for a private petition the signer did not create. */
  accessCode: string | null;
};
