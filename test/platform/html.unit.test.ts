// The one HTML escaping and templating helper (platform/html.ts): interpolations are escaped unless
// they are fragments made by `html` or marked `trusted`, and no other file writes an escaper of its own.
import { expect } from 'chai';
import { readSource, sourceFiles } from '../support/source-scan.ts';
import { html, trusted } from '../../platform/html.ts';

const SOURCE_FOLDERS = ['api', 'core', 'platform', 'activities', 'workflows', 'worker', 'orchestration', 'identity-provider'];

describe('html (platform/html.ts)', () => {
  it('escapes each character that could open a tag, an entity or leave an attribute', () => {
    const cases: [string, string][] = [
      ['&', '&amp;'],
      ['<', '&lt;'],
      ['>', '&gt;'],
      ['"', '&quot;'],
      ["'", '&#39;'],
    ];
    for (const [char, entity] of cases) expect(html`<p title="${char}">${char}</p>`.value, char).to.equal(`<p title="${entity}">${entity}</p>`);
  });

  it('embeds fragments made by html (also in arrays) as they are, escaping what was interpolated into them once', () => {
    const items = ['<a>', 'b & c'].map((text) => html`<li>${text}</li>`);
    expect(html`<ul>${items}</ul>${html`<b>${'"x"'}</b>`}`.value).to.equal('<ul><li>&lt;a&gt;</li><li>b &amp; c</li></ul><b>&quot;x&quot;</b>');
  });

  it('embeds markup marked trusted as it is, and writes nothing for null, undefined and false', () => {
    expect(html`${trusted('<style>a>b{}</style>')}${null}${undefined}${false}${0}`.value).to.equal('<style>a>b{}</style>0');
  });

  it('is the only HTML escaper in the source: no other file maps & < > " \' to entities', () => {
    const own = 'platform/html.ts';
    // A character class of the characters to escape, or a quoted entity as a replacement value.
    const escaper = /\/\[&<>|['"`]&(?:amp|lt|gt|quot|#39);['"`]/;
    const offenders = sourceFiles(...SOURCE_FOLDERS).filter((file) => file !== own && escaper.test(readSource(file)));
    expect(offenders).to.deep.equal([]);
  });
});
