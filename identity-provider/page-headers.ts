// The security headers of the embedded provider's own pages (interactions.ts), in one place: the provider is its own process and does not import the API's
// (api/http/security-headers.ts), whose rules these follow. No script, the inline stylesheet only, never framed, no referrer; the forms post here, and the
// provider then redirects the browser on to Rally's callback (form-action names both, as browsers apply it to a form's redirects too).
export function pageHeaders(rallyOrigin: string): Record<string, string> {
  return {
    'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self' ${rallyOrigin}; frame-ancestors 'none'`,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
}
