// The input of a signature a logged-in person gives with nothing beside their name: no comment, no
// place, no referrer, no access code. Tests that drive the signing core directly start from it.
import { viewerOf } from '../../core/petitions/policy.ts';
import type { SignatureInput } from '../../core/signatures/signature-input.ts';

export const plainSignatureInput = (petitionId: string, userId: string): SignatureInput => ({
  petitionId,
  userId,
  viewer: viewerOf({ userId, role: 'user' }),
  actor: { type: 'user', id: userId },
  comment: null,
  isAnonymous: false,
  displayLocation: null,
  place: { city: null, region: null, country: null, latitude: null, longitude: null },
  referrerSlug: null,
  accessCode: null,
});
