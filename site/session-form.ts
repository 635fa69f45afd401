// The body of a browser form POST, read the one way every HTML form route reads it: bounded, a form type only, each field once (platform/form-body.ts), a
// refusal page instead of a problem document when it is not. Forms of logged-in pages also need the session's CSRF token and a same-origin sender
// (api/http/browser-session.ts decides); the guest form has no session and checks its own form token.
import { FormBodyError, readFormBody } from '../platform/form-body.ts';
import type { RallyContext } from '../api/http/context.ts';
import { seeOther, sendRefusal } from './browser-pages.ts';
import { loginPath, type BrowserSessions, type CurrentSession } from '../api/http/browser-session.ts';

export type FormFields = Record<string, string>;

const NOT_FROM_OUR_PAGE = 'This form can only be sent from a Rally page you have open while logged in. Reload the page and try again.';

/** The form's fields, or undefined after `refuse` answered a malformed, oversized or non-form body. */
export async function readBrowserForm(ctx: RallyContext, refuse: (status: number, message: string) => void): Promise<FormFields | undefined> {
  try {
    return await readFormBody(ctx.req);
  } catch (error) {
    if (!(error instanceof FormBodyError)) throw error;
    refuse(error.status, error.message);
    return undefined;
  }
}

export type SessionFormOptions = {
  sessions: BrowserSessions;
  publicUrl: string;
  /** Where the refusal page's "Go back" link leads. */
  back?: string;
  /** Set for a form that logs in first: nobody logged in is sent to /login, coming back to this path. */
  loginReturnTo?: string;
};

/** A form of a logged-in page with its session, or undefined after answering (a refusal page, or the way to /login). */
export async function readSessionForm(ctx: RallyContext, options: SessionFormOptions): Promise<{ form: FormFields; session: CurrentSession } | undefined> {
  const { sessions, publicUrl, back } = options;
  const form = await readBrowserForm(ctx, (status, message) => sendRefusal(ctx, publicUrl, status, message, back));
  if (!form) return undefined;
  const session = await sessions.current(ctx);
  if (!session && options.loginReturnTo) {
    seeOther(ctx, loginPath(options.loginReturnTo));
    return undefined;
  }
  if (!session || !sessions.formAllowed(ctx, session, form.csrf_token)) {
    sendRefusal(ctx, publicUrl, 403, NOT_FROM_OUR_PAGE, back);
    return undefined;
  }
  return { form, session };
}
