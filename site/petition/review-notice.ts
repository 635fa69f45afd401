// What /p/{slug} and /embed/p/{slug} show for a petition under review to a visitor who may not read it (showsReviewNotice in core/petitions/policy.ts): that it
// is under review and cannot be signed for now, and nothing of the petition itself, which is hidden pending the moderators' decision. Search engines are asked
// not to index it; the short cache lets a restored petition come back soon.
import { html, trusted } from '../../platform/html.ts';
import { PAGE_CSS, WIDGET_CSS } from '../styles.ts';
import type { WidgetTheme } from './widget-page.ts';

const HEADING = 'This petition is under review';
const TEXT = 'Rally’s moderators are reviewing this petition. It cannot be signed and its content is hidden until the review is over.';

export function renderReviewNoticePage(): string {
  return html`<!doctype html>
<html lang="en" data-theme="auto"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Petition under review · Rally</title><meta name="description" content="${TEXT}">
<style>${trusted(PAGE_CSS)}</style></head>
<body><main><h1>${HEADING}</h1><p class="notice" role="status">${TEXT}</p>
<footer class="mu">Hosted on Rally, the open petition platform.</footer></main></body></html>`.value;
}

export function renderReviewNoticeWidget(theme: WidgetTheme): string {
  return html`<!doctype html>
<html lang="en" data-theme="${theme}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Petition under review · Rally</title>
<style>${trusted(WIDGET_CSS)}</style></head>
<body><main class="w"><h1 class="t">${HEADING}</h1><p class="notice" role="status">${TEXT}</p>
<p class="by mu">Petition on Rally</p></main></body></html>`.value;
}
