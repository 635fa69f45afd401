// The forms of the pages (signing, logging out): labels above their fields, errors in a colour of
// at least 4.5:1 on the background in both themes (--er is set per theme here), a visible focus
// ring on every control. Part of the page and widget stylesheets (styles.ts), hashed with them.
export const FORM_CSS = `:root,[data-theme=light]{--er:#b3261e;--bd:#767676}[data-theme=dark]{--er:#ffb4ab;--bd:#9a9a9a}
@media (prefers-color-scheme:dark){[data-theme=auto]{--er:#ffb4ab;--bd:#9a9a9a}}
label{display:block;font-weight:600;margin-top:.8rem}.check{display:flex;gap:.5rem;align-items:center}.check label{margin:0;font-weight:400}
textarea{display:block;width:100%;font:inherit;padding:.5rem;margin-top:.25rem;border:1px solid var(--bd);border-radius:.3rem}
textarea{background:var(--bg);color:var(--fg)}button.btn{border:0;font:inherit;font-weight:700;cursor:pointer;margin-top:.8rem}
button.btn.secondary{background:var(--bg);color:var(--ac);border:2px solid var(--ac)}
textarea:focus-visible,input:focus-visible,button:focus-visible{outline:3px solid var(--fg);outline-offset:2px}
.err{color:var(--er);margin:.25rem 0 0}.summary{border:2px solid var(--er);border-radius:.4rem;padding:.5rem 1rem;margin:.5rem 0}`;
