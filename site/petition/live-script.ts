// The one script of the page and the widget, served same-origin as /assets/live.js (so the CSP needs no inline script at all). It keeps the signature count
// live over /v1/realtime, reconnecting with a growing delay, and, inside an iframe, posts {type: "rally:resize", height} to the host page on load and whenever
// the widget's height changes. The message holds nothing private, so it is sent to any parent origin; the host script checks that it comes from Rally's origin.
import { createHash } from 'node:crypto';

export const LIVE_SCRIPT = `(function () {
  'use strict';
  var root = document.querySelector('[data-petition]');
  if (!root) return;
  var id = root.getAttribute('data-petition');
  var format = new Intl.NumberFormat('en-US');
  function show(count) {
    document.querySelectorAll('[data-count]').forEach(function (el) { el.textContent = format.format(count); });
    document.querySelectorAll('progress[data-progress]').forEach(function (bar) { bar.value = Math.min(count, bar.max); });
  }
  var delay = 1000;
  function connect() {
    var socket = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/v1/realtime');
    socket.onopen = function () { delay = 1000; socket.send(JSON.stringify({ type: 'subscribe', petition_id: id })); };
    socket.onmessage = function (event) {
      var message;
      try { message = JSON.parse(event.data); } catch (e) { return; }
      if (!message || message.petition_id !== id) return;
      if (message.type === 'subscribed') root.setAttribute('data-live', 'on');
      if (typeof message.signature_count === 'number') show(message.signature_count);
    };
    socket.onclose = function () { root.removeAttribute('data-live'); setTimeout(connect, delay); delay = Math.min(delay * 2, 30000); };
  }
  if ('WebSocket' in window) connect();
  if (window.parent === window) return;
  var last = 0;
  function postHeight() {
    var height = Math.ceil(document.body.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: 'rally:resize', height: height }, '*');
  }
  if ('ResizeObserver' in window) new ResizeObserver(postHeight).observe(document.body);
  window.addEventListener('load', postHeight);
  postHeight();
})();
`;

export const LIVE_SCRIPT_ETAG = `"${createHash('sha256').update(LIVE_SCRIPT).digest('base64url').slice(0, 22)}"`;
/** Versioned address: a changed script gets a new URL, so the old one can be cached for long. */
export const LIVE_SCRIPT_PATH = `/assets/live.js?v=${LIVE_SCRIPT_ETAG.slice(1, 9)}`;
