// Who is calling, once their credentials are verified: a user through an access token, an API
// key acting for its owner, or an OAuth app acting for the user who authorized it. Every policy in core/ decides on a Principal, never on HTTP details.

/** What an API key scope must allow (see scopes.ts): reading, changing, destroying, administering. */
export type Permission = 'read' | 'write' | 'destroy' | 'admin';

export type Principal = {
  kind: 'user' | 'api_key' | 'oauth_app';
  userId: string;
  role: 'user' | 'admin';
  /** For API keys: the key's id and scope; for users, full. */
  apiKeyId?: string;
  /**
   * For an organization's own keys: the organization, and the person who created the key (null for
   * keys made before that was recorded). Such a key acts for the organization, never as a person.
   */
  organizationKey?: { organizationId: string; createdBy: string | null };
  /** For access tokens: the JWT id, so the token can be revoked. */
  tokenId?: string;
  scope: 'read' | 'read_write' | 'full';
  /** For OAuth apps: the client and the scopes its token carries (they narrow `scope`). */
  clientId?: string;
  oauthScopes?: readonly string[];
  /**
   * For users and OAuth apps: the domain of the user's email as signatures normalise it, read with
   * the user (core/users/directory.ts), so the signing throttle needs no query of its own.
   */
  emailDomain?: string | null;
};
