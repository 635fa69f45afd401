// The stylesheets of the petition page and the widget, inlined in <style> and allowed by their SHA-256 in the Content-Security-Policy (no 'unsafe-inline', and
// the hash stays valid in cached copies, unlike a per-response nonce). Colours are CSS variables per theme; every text colour has a contrast of at least 4.5:1
// on its background in both themes (checked in the browser tests).
import { createHash } from 'node:crypto';
import { FORM_CSS } from './form-styles.ts';
import { GUEST_FORM_CSS } from './sign/guest-sign-form.ts';

const LIGHT = '--bg:#ffffff;--fg:#1b1b1b;--mu:#4f4f4f;--ac:#0a58a8;--on:#ffffff;--tr:#d4d4d4;--nb:#fff1c7';
const DARK = '--bg:#151515;--fg:#f1f1f1;--mu:#c6c6c6;--ac:#8fc4ff;--on:#101010;--tr:#3d3d3d;--nb:#3b3012';

// `theme=auto` follows the reader's system setting; the page itself always does.
const THEMES = `:root,[data-theme=light]{${LIGHT}}[data-theme=dark]{${DARK}}@media (prefers-color-scheme:dark){[data-theme=auto]{${DARK}}}`;

const COMMON = `*{box-sizing:border-box}html,body{margin:0;background:var(--bg);color:var(--fg)}a{color:var(--ac)}.mu{color:var(--mu)}
.btn{display:inline-block;padding:.6rem 1.1rem;border-radius:.4rem;background:var(--ac);color:var(--on);font-weight:700;text-decoration:none}
.btn:focus-visible,a:focus-visible{outline:3px solid var(--fg);outline-offset:2px}
progress{-webkit-appearance:none;appearance:none;display:block;width:100%;height:.6rem;border:0;border-radius:.3rem;background:var(--tr);color:var(--ac)}
progress::-webkit-progress-bar{background:var(--tr);border-radius:.3rem}progress::-webkit-progress-value{background:var(--ac);border-radius:.3rem}
progress::-moz-progress-bar{background:var(--ac);border-radius:.3rem}.notice{background:var(--nb);color:var(--fg);padding:.7rem;border-radius:.4rem}
${FORM_CSS}`;

export const PAGE_CSS = `${THEMES}${COMMON}
body{font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}main{max-width:46rem;margin:0 auto;padding:1.5rem 1rem 3rem}
h1{font-size:1.9rem;line-height:1.2;margin:.4rem 0}h2{font-size:1.25rem;margin:2rem 0 .5rem}h3{font-size:1.05rem;margin:.2rem 0}
img{display:block;max-width:100%;height:auto;border-radius:.4rem}figure{margin:1rem 0}
.tally{border:1px solid var(--tr);border-radius:.5rem;padding:1rem;margin:1rem 0}.tally p{margin:0 0 .5rem}.tally .btn,.tally .notice{margin-top:.9rem}
.count{font-size:1.6rem;font-weight:700}.entry{border-left:3px solid var(--tr);padding-left:.8rem;margin:1rem 0}
footer{border-top:1px solid var(--tr);margin-top:2rem;padding-top:1rem}${GUEST_FORM_CSS}`;

export const WIDGET_CSS =
  `${THEMES}${COMMON}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}.w{padding:1rem;border:1px solid var(--tr);border-radius:.5rem}
.t{font-size:1.1rem;line-height:1.3;margin:0 0 .5rem}.t a{color:var(--fg);text-decoration:none}.t a:hover{text-decoration:underline}
.d{margin:0 0 .6rem}.c{margin:.3rem 0 .5rem}.c .count{font-size:1.25rem;font-weight:700}.w .btn,.w .notice{margin-top:.8rem}` +
  `.by{margin:.6rem 0 0;font-size:.85rem}${GUEST_FORM_CSS}`;

const hashOf = (css: string) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
export const PAGE_CSS_HASH = hashOf(PAGE_CSS);
export const WIDGET_CSS_HASH = hashOf(WIDGET_CSS);
