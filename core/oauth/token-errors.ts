// Token endpoint failures as RFC 6749 5.2 words them: `{error, error_description}`, 400, or 401 when
// client authentication failed. Rally's own answer for an expired refresh token is 401
// `token_expired` (spec, Authentication 7).
export class OAuthError extends Error {
  override name = 'OAuthError';
  readonly error: string;
  readonly description: string;
  readonly status: 400 | 401;
  constructor(error: string, description: string, status: 400 | 401 = 400) {
    super(description);
    this.error = error;
    this.description = description;
    this.status = status;
  }
}

export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);
export const invalidRequest = (description: string) => new OAuthError('invalid_request', description);
