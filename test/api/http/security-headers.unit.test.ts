// The one place for security headers (api/http/security-headers.ts): the named policies keep the
// values each kind of HTML answer had, and no other source file writes a security header's value.
import { expect } from 'chai';
import { readSource, sourceFiles } from '../../support/source-scan.ts';
import { htmlPolicies } from '../../../api/http/security-headers.ts';

const SOURCE_FOLDERS = ['api', 'core', 'platform', 'activities', 'workflows', 'worker', 'identity-provider', 'orchestration'];

describe('security headers (api/http/security-headers.ts)', () => {
  // The page and the widget post their sign forms to Rally itself (issue 26): form-action 'self'.
  it('names the policy of static HTML, the page, the widget and the OAuth consent screen with the values they had', () => {
    expect(htmlPolicies.static).to.equal(
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(htmlPolicies.page('https://rally.example', { styleHash: "'sha256-x'", imageOrigins: ['https://cdn.example/a.webp', 'not a url'] })).to.equal(
      "default-src 'none'; script-src 'self'; style-src 'sha256-x'; img-src 'self' https://cdn.example; " +
        "connect-src 'self' wss://rally.example; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(htmlPolicies.widget('http://localhost:3000', { styleHash: "'sha256-y'" })).to.equal(
      "default-src 'none'; script-src 'self'; style-src 'sha256-y'; img-src 'self'; connect-src 'self' " +
        "ws://localhost:3000; base-uri 'none'; form-action 'self'; frame-ancestors *",
    );
    expect(htmlPolicies.oauthConsent({ redirectOrigin: 'https://app.example', scriptHash: "'sha256-z'" })).to.equal(
      "default-src 'none'; script-src 'sha256-z'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'; form-action 'self' https://app.example",
    );
    expect(htmlPolicies.oauthConsent()).to.equal("default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'");
  });

  it('is the only source file that writes a security header value (framing, CSP directives, nosniff, HSTS, referrer)', () => {
    // The identity provider is its own process and may not import api/: its pages' headers are in one file of its own.
    const own = ['api/http/security-headers.ts', 'identity-provider/page-headers.ts'];
    const headerValue = /frame-ancestors|default-src|X-Frame-Options|nosniff|Strict-Transport-Security|Referrer-Policy/i;
    const offenders = sourceFiles(...SOURCE_FOLDERS).filter((file) => !own.includes(file) && headerValue.test(readSource(file)));
    expect(offenders).to.deep.equal([]);
  });
});
