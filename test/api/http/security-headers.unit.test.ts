// The one place for security headers (api/http/security-headers.ts): the named policies keep the
// values each kind of HTML answer had, and no other source file writes a security header's value.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { htmlPolicies } from '../../../api/http/security-headers.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SOURCE_FOLDERS = ['api', 'core', 'platform', 'activities', 'workflows', 'worker', 'identity-provider', 'orchestration'];

function sourceFiles(folder: string): string[] {
  let entries;
  try {
    entries = readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true });
  } catch {
    return [];
  }
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => join(entry.parentPath, entry.name));
}

describe('security headers (api/http/security-headers.ts)', () => {
  it('names the policy of static HTML, the page, the widget and the OAuth consent screen with the values they had', () => {
    expect(htmlPolicies.static).to.equal(
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(htmlPolicies.page('https://rally.example', { styleHash: "'sha256-x'", imageOrigins: ['https://cdn.example/a.webp', 'not a url'] })).to.equal(
      "default-src 'none'; script-src 'self'; style-src 'sha256-x'; img-src 'self' https://cdn.example; " +
        "connect-src 'self' wss://rally.example; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(htmlPolicies.widget('http://localhost:3000', { styleHash: "'sha256-y'" })).to.equal(
      "default-src 'none'; script-src 'self'; style-src 'sha256-y'; img-src 'self'; connect-src 'self' " +
        "ws://localhost:3000; base-uri 'none'; form-action 'none'; frame-ancestors *",
    );
    expect(htmlPolicies.oauthConsent('https://app.example')).to.equal(
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'; form-action 'self' https://app.example",
    );
    expect(htmlPolicies.oauthConsent()).to.equal("default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'");
  });

  it('is the only source file that writes a security header value (framing, CSP directives, nosniff, HSTS, referrer)', () => {
    const own = join(ROOT, 'api/http/security-headers.ts');
    const headerValue = /frame-ancestors|default-src|X-Frame-Options|nosniff|Strict-Transport-Security|Referrer-Policy/i;
    const offenders = SOURCE_FOLDERS.flatMap(sourceFiles).filter((file) => file !== own && headerValue.test(readFileSync(file, 'utf8')));
    expect(offenders.map((file) => relative(ROOT, file))).to.deep.equal([]);
  });
});
