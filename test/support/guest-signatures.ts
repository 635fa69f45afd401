// A guest signing form as core/guest-signatures/submit.ts takes it, for tests that store pending guest signatures.
import type { GuestSignatureForm } from '../../core/guest-signatures/submit.ts';

export const guestForm = (petitionId: string, email: string): GuestSignatureForm => ({
  petitionId,
  email,
  displayName: 'Gus Guest',
  comment: null,
  isAnonymous: false,
  contactConsent: false,
  source: 'page',
  networkHash: null,
});
