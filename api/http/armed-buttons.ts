// Buttons that act at once (Approve on the consent screen, Sign in the widget's popup) answer a click only once their page has been visible for half a second:
// a double click begun on another site, whose second click lands on a page swapped in under the pointer (double-clickjacking), presses nothing.
import { createHash } from 'node:crypto';
import { trusted, type SafeHtml } from '../../platform/html.ts';

export const ARM_DELAY_MS = 500;

/** The attributes of a button that waits: disabled until the script below arms it. */
export const ARMED_BUTTON: SafeHtml = trusted(' disabled data-armed');

// The buttons are sent disabled; this script enables them, disables them again while the page is hidden (the
// wait starts over when it is shown), and starts the wait over when the page comes back from the back-forward
// cache.
export const ARM_BUTTONS_SCRIPT = `(function () {
  'use strict';
  var buttons = document.querySelectorAll('button[data-armed]');
  if (!buttons.length) return;
  var timer;
  function enable(on) { for (var i = 0; i < buttons.length; i++) buttons[i].disabled = !on; }
  function arm() {
    clearTimeout(timer);
    enable(false);
    if (document.visibilityState === 'visible') timer = setTimeout(function () { enable(true); }, ${ARM_DELAY_MS});
  }
  document.addEventListener('visibilitychange', arm);
  window.addEventListener('pageshow', function (event) { if (event.persisted) arm(); });
  arm();
})();
`;

/** For a Content-Security-Policy that runs the script inline (the consent screen). */
export const ARM_BUTTONS_SCRIPT_HASH = `'sha256-${createHash('sha256').update(ARM_BUTTONS_SCRIPT).digest('base64')}'`;
