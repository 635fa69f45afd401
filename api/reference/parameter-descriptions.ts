// What a path or query parameter means when its schema does not say: one sentence per name, the same
// on every route that takes it. A path `id` names the resource of the segment before it.
const BY_NAME: Record<string, string> = {
  slug: "The resource's slug, as in its page address.",
  org_id: "The organization's id.",
  membership_id: "The membership's id (from the organization's member list).",
  delivery_id: "The delivery's id (X-Rally-Delivery-Id of the request it made).",
  decision_maker_id: "The decision maker's id.",
  response_id: "The decision-maker response's id.",
  signature_id: "The signature's id.",
  client_id: "The OAuth app's client id.",
  uid: 'The authorization request, as named in the consent form it showed.',
  token: 'The token from the link in the e-mail; it is the credential of this request.',
  reference: 'The confirmation link of a guest signature as emailed (its id and token); it is the credential of this request.',
  file: 'A variant file of the media item, as named in its `variants`.',
  status: 'Only the items in this status.',
  unread_only: 'Only the unread notifications.',
  hours: 'How many past hours of signatures to place.',
  format: 'The format of the answer: CSV rows or JSON lines.',
  categoryId: 'Only petitions in this category.',
  category: 'Only petitions in this category.',
  creatorId: 'Only petitions started by this user.',
  granularity: 'The length of each bucket of the series.',
  petition_id: 'Only this petition.',
  access_code: 'The access code of a private petition, when the caller is not its creator.',
  expires: 'When the signed upload address stops working (Unix seconds), as issued.',
  signature: "The upload address's signature, as issued.",
  tag: 'Only petitions with this tag.',
  sort: 'The order of the results.',
  role: 'Only members with this role.',
  verified_only: 'Only verified organizations.',
  target_type: 'Only reports against this kind of target.',
  suspended: 'Only suspended (true) or active (false) users.',
  user_id: 'Only this user.',
  actor_id: 'Only actions by this actor.',
  action: 'Only this action.',
  since: 'Only entries at or after this time.',
};

// Plural path segments whose singular is not the segment minus its last letter.
const SINGULAR: Record<string, string> = {
  'api-keys': 'API key',
  'decision-makers': 'decision maker',
  'petition-updates': 'petition update',
  uploads: 'upload',
  media: 'media item',
  authorizations: 'authorization',
};

function resourceBefore(path: string, name: string): string {
  const segments = path.split('/');
  const segment = segments[segments.indexOf(`{${name}}`) - 1] ?? '';
  return SINGULAR[segment] ?? segment.replace(/ies$/, 'y').replace(/s$/, '').replaceAll('-', ' ');
}

/** The parameter's description: its schema's, else the shared sentence for its name; undefined if neither. */
export function parameterDescription(path: string, location: 'path' | 'query', name: string, own: string | undefined): string | undefined {
  if (own) return own;
  if (location === 'path' && name === 'id') return `The ${resourceBefore(path, name)}'s id.`;
  return BY_NAME[name];
}
