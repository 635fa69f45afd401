// GET /embed/p/{slug}: the widget other sites put in an iframe. Small on purpose (one HTML answer
// with its stylesheet inlined, plus the shared live script): title, count, progress, and a sign link
// that opens the petition page in a new tab. No cookies, no third-party requests, no images.
import type { PublicPetition } from '../../core/public-petition.ts';
import { excerpt, html, trusted } from '../../platform/html.ts';
import { LIVE_SCRIPT_PATH } from './live-script.ts';
import { callToAction, tally } from './petition-page.ts';
import { WIDGET_CSS } from '../styles.ts';
import { widgetAccountLink } from '../sign/sign-panel.ts';
import { ACCOUNT_SCRIPT_PATH } from '../sign/account-script.ts';
import { petitionPageUrl, type WidgetOptions } from '../../api/http/petition-urls.ts';
import { guestSigning } from '../sign/guest-sign-form.ts';

export const WIDGET_THEMES = ['light', 'dark', 'auto'] as const;
export type WidgetTheme = (typeof WIDGET_THEMES)[number];

export function widgetTheme(value: unknown): WidgetTheme {
  return WIDGET_THEMES.includes(value as WidgetTheme) ? (value as WidgetTheme) : 'light';
}

export function renderWidgetPage(data: PublicPetition, publicUrl: string, options: Required<WidgetOptions>): string {
  const { petition } = data;
  const pageUrl = petitionPageUrl(publicUrl, petition.slug);
  const page = html`<!doctype html>
<html lang="en" data-theme="${options.theme}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${petition.title} · Rally</title>
<style>${trusted(WIDGET_CSS)}</style><script src="${LIVE_SCRIPT_PATH}" defer></script><script src="${ACCOUNT_SCRIPT_PATH}" defer></script></head>
<body><main class="w" data-petition="${petition.id}">
<h1 class="t"><a href="${pageUrl}?source=embed" target="_blank" rel="noopener">${petition.title}</a></h1>
${options.showDescription ? html`<p class="d mu">${excerpt(petition.description, 240)}</p>` : ''}
<div class="c">${tally(petition)}</div>
${callToAction(petition, `${pageUrl}?source=embed#sign`, true)}
${petition.status === 'active' ? widgetAccountLink(petition.slug) : ''}
<!-- guest signing, confirmed by email -->${guestSigning(petition, 'widget')}
<p class="by mu">Petition on Rally</p></main></body></html>`;
  return page.value;
}
