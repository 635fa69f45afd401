// A real headless Chromium for tests (Debian's /usr/bin/chromium through puppeteer-core). A missing
// browser fails the test with a clear message rather than skipping it: these tests prove real pages.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export type TestBrowser = { browser: Browser; close(): Promise<void> };

export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`no Chromium at ${CHROMIUM_PATH}: install it (apt-get install chromium) to run the browser tests`);
  const profile = mkdtempSync(path.join(tmpdir(), 'rally-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`,
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
