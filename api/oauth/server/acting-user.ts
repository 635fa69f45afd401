// Who is deciding at /oauth/authorize, as the provider sees it: Rally knows the user first (from the spec's Bearer or Rally's browser login) and logs the
// provider's session in as them, so the provider never shows a login screen of its own and a browser whose Rally login changed is decided for by its current
// user. Requests the route does not vouch for (the resume step after the consent form) keep the provider session they carry.
import type { IncomingMessage } from 'node:http';
import type { Provider } from 'oidc-provider';

const actingUsers = new WeakMap<IncomingMessage, string>();

/** The user the Rally route found for this request (Bearer or browser login). */
export function vouchForUser(request: IncomingMessage, userId: string): void {
  actingUsers.set(request, userId);
}

/** Wraps the provider's session lookup so the vouched-for user is its logged-in account. */
export function actAsRallyUser(provider: Provider): void {
  const SessionModel = provider.Session;
  const findSession = SessionModel.get.bind(SessionModel);
  SessionModel.get = async function get(ctx) {
    const session = await findSession(ctx);
    const userId = actingUsers.get(ctx.req);
    if (userId && session.accountId !== userId) {
      session.loginAccount({ accountId: userId });
      // Saved with the answer, so the resume step after the consent form finds the same login.
      Object.defineProperty(session, 'touched', { writable: true, value: true });
    }
    return session;
  };
}
