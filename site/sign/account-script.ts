// The script of the account popup, served same-origin as /assets/account.js (no inline script, so the pages' CSP stays 'self'). In the widget, "Sign with my
// account" opens Rally's sign page in a popup, a first-party window where the login cookie works although the iframe's cookies are blocked; the popup tells the
// widget once the person has signed.
import { createHash } from 'node:crypto';
import { ARM_BUTTONS_SCRIPT } from '../../api/http/armed-buttons.ts';

// In the widget, a message from the popup, checked to come from Rally's own origin, shows the signature and the
// new count. In the popup, once the person has signed, it tells its opener (the widget, whose origin is
// Rally's: the message goes to that origin only) and offers to close; its Sign button is armed after half a
// second of being seen (api/http/armed-buttons.ts).
export const ACCOUNT_SCRIPT = `${ARM_BUTTONS_SCRIPT}(function () {
  'use strict';
  var format = new Intl.NumberFormat('en-US');
  var signed = document.querySelector('[data-signed-petition]');
  if (signed) {
    var message = { type: 'rally:signed', petition_id: signed.getAttribute('data-signed-petition') };
    message.signature_count = Number(signed.getAttribute('data-count'));
    if (window.opener) { try { window.opener.postMessage(message, location.origin); } catch (e) {} }
    var close = document.querySelector('[data-close]');
    if (close && window.opener) { close.hidden = false; close.addEventListener('click', function () { window.close(); }); }
    return;
  }
  var root = document.querySelector('[data-petition]');
  var link = document.querySelector('[data-account-popup]');
  if (!root || !link) return;
  var id = root.getAttribute('data-petition');
  link.addEventListener('click', function (event) {
    var popup = window.open(link.href, 'rally-sign-' + id, 'popup,width=520,height=720');
    if (popup) event.preventDefault();
  });
  window.addEventListener('message', function (event) {
    if (event.origin !== location.origin) return;
    var data = event.data;
    if (!data || data.type !== 'rally:signed' || data.petition_id !== id) return;
    var done = document.querySelector('[data-widget-signed]');
    if (done) done.hidden = false;
    link.closest('.acct').hidden = true;
    if (typeof data.signature_count === 'number' && data.signature_count > 0) {
      document.querySelectorAll('[data-count]').forEach(function (el) { el.textContent = format.format(data.signature_count); });
    }
  });
})();
`;

export const ACCOUNT_SCRIPT_ETAG = `"${createHash('sha256').update(ACCOUNT_SCRIPT).digest('base64url').slice(0, 22)}"`;
/** Versioned address: a changed script gets a new URL, so the old one can be cached for long. */
export const ACCOUNT_SCRIPT_PATH = `/assets/account.js?v=${ACCOUNT_SCRIPT_ETAG.slice(1, 9)}`;
