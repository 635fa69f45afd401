// CSRF for forms without a session (the guest signing form, "never email me again"): sent from a document of Rally's own origin. Sec-Fetch-Site, which no page
// can set, decides where a browser sends it (secure origins); without it (plain http, an older browser, a script, a mail client's one-click POST), an Origin
// given must be ours: the forms' pages have a same-origin referrer policy so that it is not "null".
import type { RallyContext } from '../../api/http/context.ts';

export function sentFromOrigin(ctx: RallyContext, origin: string): boolean {
  const site = ctx.get('Sec-Fetch-Site');
  if (site) return site === 'same-origin';
  const from = ctx.get('Origin');
  return !from || from === origin;
}
