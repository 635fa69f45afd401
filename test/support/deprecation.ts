// docs/guides/versioning.md's promise, checked on an answer: a deprecated thing says when it was
// deprecated (RFC 9745 `Deprecation: @<seconds>`) and gives a Sunset (RFC 8594) 12 months later.
import { expect } from 'chai';

export function expectTwelveMonthsNotice(headers: Headers): { deprecatedAt: Date; sunsetAt: Date } {
  const deprecation = /^@(\d+)$/.exec(headers.get('deprecation') ?? '');
  expect(deprecation, `Deprecation: ${headers.get('deprecation')}`).to.not.equal(null);
  const deprecatedAt = new Date(Number(deprecation![1]) * 1000);
  const sunset = headers.get('sunset') ?? '';
  expect(sunset, 'Sunset is an HTTP date').to.match(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
  const promised = new Date(deprecatedAt);
  promised.setUTCFullYear(promised.getUTCFullYear() + 1);
  expect(new Date(sunset).toISOString(), 'Sunset 12 months after the deprecation').to.equal(promised.toISOString());
  return { deprecatedAt, sunsetAt: new Date(sunset) };
}
