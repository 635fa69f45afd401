// GET /p/{slug}: the public petition page, complete without JavaScript. Its head carries what
// link previews and oEmbed-aware editors read: description, canonical URL, Open Graph and Twitter
// Card tags, and the oEmbed discovery link. The one script keeps the count live.
import type { PublicPetition } from '../../core/public-petition.ts';
import { signerDataDates } from '../../core/petitions/signer-data-dates.ts';
import { excerpt, formatDate, formatNumber, html, paragraphs, trusted, type SafeHtml } from '../../platform/html.ts';
import { LIVE_SCRIPT_PATH } from './live-script.ts';
import { PAGE_CSS } from '../styles.ts';
import { oembedUrl, petitionPageUrl } from '../../api/http/petition-urls.ts';

const RESPONSE_STATUS: Record<string, string> = { acknowledged: 'Acknowledged', supportive: 'Supportive', opposed: 'Opposed', neutral: 'Neutral' };

export function tally(petition: PublicPetition['petition']): SafeHtml {
  const count = petition.live_signature_count;
  const goal = petition.signature_goal;
  const ofGoal = goal ? html` of a goal of ${formatNumber(goal)}` : '';
  const bar = (of: number) => html`data-progress max="${of}" value="${Math.min(count, of)}" aria-label="Signatures towards the goal"`;
  const progress = goal ? html`<progress ${bar(goal)}>${formatNumber(count)} of ${formatNumber(goal)}</progress>` : '';
  return html`<p><span class="count" data-count>${formatNumber(count)}</span> <span class="mu">${count === 1 ? 'signature' : 'signatures'}${ofGoal}</span></p>
${progress}`;
}

/** What a visitor can do now: sign (through the sign-in flow), or why not. A petition under review never gets here (review-notice.ts). */
export function callToAction(petition: PublicPetition['petition'], signHref: string, opensTab: boolean): SafeHtml {
  if (petition.status === 'victory') return html`<p class="notice" role="status">Victory! This petition has won and is no longer collecting signatures.</p>`;
  if (petition.status === 'closed')
    return html`<p class="notice" role="status">This petition is closed${petition.closed_at ? ` since ${formatDate(petition.closed_at)}` : ''}.</p>`;
  return opensTab
    ? html`<a class="btn" href="${signHref}" target="_blank" rel="noopener">Sign this petition</a>`
    : html`<a class="btn" id="sign-button" href="${signHref}">Sign this petition</a>`;
}

const DAY_MS = 86_400_000;
const lasting = (ms: number) => (ms >= DAY_MS ? `${Math.round(ms / DAY_MS)} days` : `${Math.max(1, Math.round(ms / 3_600_000))} hours`);

/** When signers' names and details go (RALLY_SIGNER_DATA_RETENTION; null: off), said before anyone signs. */
export function signerDataNotice(petition: PublicPetition['petition'], retentionMs: number | null, now = Date.now()): SafeHtml {
  const { signer_data_deleted_at: deleted, signer_data_deletion_due_at: due } = signerDataDates(petition, retentionMs);
  const notice = (text: string) => html`<p class="mu" data-signer-data>${text}</p>`;
  if (deleted) return notice(`Signers' names and details were deleted on ${formatDate(deleted)}; the count remains.`);
  if (due)
    return notice(`Signers' names and details ${Date.parse(due) > now ? `will be deleted on ${formatDate(due)}` : 'are being deleted'}; the count remains.`);
  if (retentionMs === null) return html``;
  return notice(`Signers' names and details are deleted ${lasting(retentionMs)} after this petition closes.`);
}

function image(data: PublicPetition): SafeHtml {
  const { image: picture } = data;
  if (!picture) return html``;
  const largest = picture.variants.at(-1);
  if (!largest) return html`<figure><img src="${picture.url}" alt="${picture.alt}"></figure>`;
  const srcset = picture.variants.map((variant) => `${variant.url} ${variant.width}w`).join(', ');
  const sizes = html`sizes="(max-width: 46rem) 100vw, 46rem" width="${largest.width}" height="${largest.height}"`;
  return html`<figure><img src="${largest.url}" srcset="${srcset}" ${sizes} alt="${picture.alt}"></figure>`;
}

function responseEntry(response: PublicPetition['responses'][number]): SafeHtml {
  const status = RESPONSE_STATUS[response.status] ?? response.status;
  return html`<article class="entry"><h3>${response.decision_maker_name}<span class="mu">, ${response.decision_maker_title}</span></h3>
<p class="mu">${status} · ${formatDate(response.published_at ?? response.created_at)}</p>${paragraphs(response.body)}</article>`;
}

function decisionMakers(data: PublicPetition): SafeHtml {
  if (data.decisionMakers.length === 0) return html``;
  return html`<section aria-labelledby="decision-makers"><h2 id="decision-makers">Decision makers</h2><ul>${data.decisionMakers.map(
    (person) => html`<li>${person.name}<span class="mu">, ${person.title}</span></li>`,
  )}</ul>${data.responses.length ? html`<h2>Their responses</h2>${data.responses.map(responseEntry)}` : ''}</section>`;
}

function updates(data: PublicPetition): SafeHtml {
  if (data.updates.length === 0) return html``;
  return html`<section aria-labelledby="updates"><h2 id="updates">Latest updates</h2>${data.updates.map(
    (update) => html`<article class="entry"><h3>${update.title}</h3><p class="mu">${formatDate(update.created_at)}</p>${paragraphs(update.body)}</article>`,
  )}</section>`;
}

function metaTags(data: PublicPetition, publicUrl: string): SafeHtml {
  const { petition } = data;
  const url = petitionPageUrl(publicUrl, petition.slug);
  const summary = excerpt(petition.description, 200);
  const preview = data.image?.variants.at(-1) ?? (data.image ? { url: data.image.url, width: null, height: null } : null);
  const previewSize = preview?.width
    ? html`<meta property="og:image:width" content="${preview.width}"><meta property="og:image:height" content="${preview.height}">`
    : '';
  const twitterCard = html`<meta name="twitter:card" content="${preview ? 'summary_large_image' : 'summary'}">`;
  return html`<meta name="description" content="${summary}">
<link rel="canonical" href="${url}">
<link rel="alternate" type="application/json+oembed" href="${oembedUrl(publicUrl, petition.slug)}" title="${petition.title}">
<meta property="og:type" content="website"><meta property="og:site_name" content="Rally"><meta property="og:url" content="${url}">
<meta property="og:title" content="${petition.title}"><meta property="og:description" content="${summary}">
${preview ? html`<meta property="og:image" content="${preview.url}">${previewSize}<meta property="og:image:alt" content="${petition.title}">` : ''}
${twitterCard}<meta name="twitter:title" content="${petition.title}"><meta name="twitter:description" content="${summary}">
${preview ? html`<meta name="twitter:image" content="${preview.url}"><meta name="twitter:image:alt" content="${petition.title}">` : ''}`;
}

/** `signPanel` is the "How to sign" section's content for this visitor (site/sign/sign-panel.ts); retentionMs: RALLY_SIGNER_DATA_RETENTION. */
export function renderPetitionPage(data: PublicPetition, publicUrl: string, signPanel: SafeHtml, retentionMs: number | null): string {
  const { petition } = data;
  const signHref = `${petitionPageUrl(publicUrl, petition.slug)}?source=page#sign`;
  const page = html`<!doctype html>
<html lang="en" data-theme="auto"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${petition.title} · Rally</title>
${metaTags(data, publicUrl)}
<style>${trusted(PAGE_CSS)}</style><script src="${LIVE_SCRIPT_PATH}" defer></script></head>
<body><main data-petition="${petition.id}">
<article><h1>${petition.title}</h1>
<p class="mu">Started by ${petition.creator.display_name}${petition.published_at ? ` on ${formatDate(petition.published_at)}` : ''}</p>
${image(data)}
<section class="tally" aria-label="Signatures">${tally(petition)}${callToAction(petition, signHref, false)}${signerDataNotice(petition, retentionMs)}</section>
<section aria-label="About this petition">${paragraphs(petition.description)}</section>
${petition.victory_message ? html`<section aria-labelledby="victory"><h2 id="victory">Victory</h2>${paragraphs(petition.victory_message)}</section>` : ''}
${decisionMakers(data)}${updates(data)}
<section id="sign" aria-labelledby="how-to-sign"><h2 id="how-to-sign">How to sign</h2>
${signPanel}</section>
</article>
<footer class="mu">Hosted on Rally, the open petition platform.</footer></main></body></html>`;
  return page.value;
}
