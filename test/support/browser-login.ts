// Logging people in through Rally's browser flow in Chromium (issue 26): accounts of a test's own
// embedded provider, typing into its login form, the session cookie the browser then holds, and the
// verification link of a sign-up read from the provider's .eml files.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { createIdentityAccount } from '../../identity-provider/accounts.ts';
import { upsertUserFromClaims } from '../../core/users/queries.ts';
import { testEnvironment } from './environment.ts';
import { eventually } from './events.ts';
import { PUBLIC_URL } from './processes.ts';

/** A verified account of the provider with this issuer, as `rally users create` makes one. */
export async function verifiedAccount(issuer: string, role: 'user' | 'admin' = 'user', email = `person-${randomUUID().slice(0, 8)}@example.test`) {
  const password = `pw-${randomUUID()}`;
  const displayName = `Person ${email.slice(7, 11)}`;
  const subject = await createIdentityAccount(testEnvironment().db, { email, password, displayName, emailVerified: true });
  const user = await upsertUserFromClaims(testEnvironment().db, { issuer, subject, email, displayName, emailVerified: true }, role);
  return { id: user.id, email, password, displayName };
}

/** Types into the provider's login form (the page must be on its way there) and waits until the browser is back on Rally. */
export async function typeLogin(page: Page, person: { email: string; password: string }): Promise<void> {
  await page.waitForSelector('#email');
  await page.type('#email', person.email);
  await page.type('#password', person.password);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
  // The provider answers 303 onwards to Rally's callback, which answers 303 on to return_to.
  await page.waitForFunction(`location.host === '${new URL(PUBLIC_URL).host}'`);
}

/** The browser's session cookie as a Cookie header, after checking its attributes. */
export async function sessionCookie(page: Page): Promise<string> {
  const cookie = (await page.cookies(PUBLIC_URL)).find((entry) => entry.name === 'rally_session');
  expect(cookie, 'the session cookie').to.not.equal(undefined);
  expect(cookie!).to.include({ httpOnly: true, sameSite: 'Lax' });
  return `rally_session=${cookie!.value}`;
}

/** The verification link in the .eml the provider wrote for `email` into `mailDir`. */
export function verificationLink(mailDir: string, email: string): Promise<string> {
  return eventually(
    async () => {
      for (const file of await readdir(mailDir)) {
        const raw = (await readFile(path.join(mailDir, file), 'utf8')).replace(/=\r?\n/g, '').replace(/=3D/g, '=');
        if (raw.includes(`To: ${email}`)) return /http:\/\/127\.0\.0\.1:\d+\/verify-email\?token=[A-Za-z0-9_-]{43}/.exec(raw)?.[0];
      }
      return undefined;
    },
    15_000,
    `the verification email to ${email}`,
  );
}
