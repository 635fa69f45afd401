// Debian's Chromium driven by puppeteer-core, for the tests that need a real browser. Where Chromium
// is missing the tests fail with a message saying how to install it: they never pass silently.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export type TestBrowser = { browser: Browser; close(): Promise<void> };

/** A fresh headless Chromium; `hostRules` map host names to local ports (`MAP rally.test 127.0.0.1:1234`). */
export async function launchBrowser(options: { hostRules?: string[] } = {}): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `The browser tests need Chromium at ${CHROMIUM_PATH}: install it with \`apt-get update && apt-get install -y chromium\` (.ci/run does this).`,
    );
  }
  const userDataDir = await mkdtemp(path.join(tmpdir(), 'rally-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${userDataDir}`,
      ...(options.hostRules?.length ? [`--host-resolver-rules=${options.hostRules.join(', ')}`] : []),
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
