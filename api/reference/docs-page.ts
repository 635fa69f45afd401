// /docs: the OpenAPI document rendered by Scalar (@scalar/api-reference), whose browser bundle is served from node_modules by this API, never from a CDN, with
// "try it out" calling this API. The page runs no inline script: its configuration is read by docs-init.js from a data attribute. Scalar's own fonts, telemetry
// and proxy are off, so the page reaches nothing but this origin (its CSP, htmlPolicies.docs, enforces that).
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { html, trusted } from '../../platform/html.ts';

/** Where the renderer's bundle lies, or undefined when the package is not installed. */
export function scalarBundlePath(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');
  } catch {
    return undefined;
  }
}

export async function openScalarBundle(): Promise<NodeJS.ReadableStream | undefined> {
  const path = scalarBundlePath();
  if (!path) return undefined;
  return access(path).then(
    () => createReadStream(path),
    () => undefined,
  );
}

/** Scalar's configuration: this document, same-origin requests only, nothing fetched from scalar.com. */
function configuration(publicUrl: string) {
  return {
    url: '/openapi.json',
    withDefaultFonts: false,
    telemetry: false,
    // No proxy (requests go straight to this API, which is the page's origin) and no AI agent or API
    // registry (both call scalar.com).
    proxyUrl: '',
    agent: { disabled: true },
    hideClientButton: true,
    showDeveloperTools: 'never',
    documentDownloadType: 'json',
    baseServerURL: publicUrl,
    metaData: { title: 'Rally API reference' },
  };
}

const HEAD = trusted('<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Rally API reference</title>');
// Deferred: both run in this order once the page is parsed.
const SCRIPTS = trusted('<script src="/docs/assets/docs-init.js" defer></script><script src="/docs/assets/scalar.js" defer></script>');
const NOSCRIPT = trusted('<noscript>The machine-readable reference is <a href="/openapi.json">/openapi.json</a>.</noscript>');

export function renderDocsPage(publicUrl: string): string {
  const mount = html`<div id="rally-reference" data-configuration="${JSON.stringify(configuration(publicUrl))}"></div>`;
  return html`<!doctype html><html lang="en"><head>${HEAD}</head><body>${mount}${NOSCRIPT}${SCRIPTS}</body></html>`.value;
}

/**
 * Mounts Scalar once its bundle has run (both scripts are deferred, so they run in order after the
 * page is parsed; this one waits for the `Scalar` global the bundle defines).
 */
export const DOCS_INIT_SCRIPT = `'use strict';
addEventListener('DOMContentLoaded', function () {
  var mount = document.getElementById('rally-reference');
  var configuration = JSON.parse(mount.getAttribute('data-configuration'));
  window.Scalar.createApiReference(mount, configuration);
});
`;
