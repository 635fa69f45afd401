// Which sign panel (site/sign/sign-panel.ts) a request sees: decided from its browser session and
// whether that person has signed. Pages that show it are personal, so they are never cached shared.
import type { DatabasePool } from 'slonik';
import { findOwnSignature } from '../../core/signatures/own-signature.ts';
import type { RallyContext } from '../../api/http/context.ts';
import type { SignPanelState } from './sign-panel.ts';
import type { BrowserSessions } from '../../api/http/browser-session.ts';

export async function signPanelState(
  deps: { db: DatabasePool; sessions: BrowserSessions },
  ctx: RallyContext,
  petitionId: string,
  via: 'page' | 'popup',
): Promise<SignPanelState> {
  const session = await deps.sessions.current(ctx);
  if (!session) return { kind: 'visitor' };
  const { user } = session;
  const signature = await findOwnSignature(deps.db, petitionId, user.id);
  if (signature) return { kind: 'signed', user, signature };
  if (!user.emailVerified) return { kind: 'unverified', user };
  return { kind: 'ready', user, csrfToken: session.csrfToken, via };
}
