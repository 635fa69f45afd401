// GET /v1/oembed (oEmbed 1.0 for petition page addresses) and POST /v1/petitions/{id}/embed (the
// creator's copy-paste embed code). Both produce the same iframe of the widget and the same host
// script (snippet.ts).
import type { DatabasePool } from 'slonik';
import { DomainError } from '../../core/errors/domain-error.ts';
import { assertCanManage } from '../../core/petitions/policy.ts';
import { loadViewer } from '../../core/petitions/viewer.ts';
import { loadPublicPetition } from '../../core/public-petition.ts';
import { findPetitionById } from '../../core/petitions/queries.ts';
import { sendData } from '../http/context.ts';
import { RallyError } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { oembedUrl, slugOfPageUrl, widgetUrl } from '../http/petition-urls.ts';
import { EmbedCodeEnvelope, EmbedCodeRequest, OEmbedQuery, OEmbedResponse, PetitionIdParams } from './schemas.ts';
import { DEFAULT_WIDGET_SIZE, hostScript, widgetIframe } from './snippet.ts';

// The iframe shows a live count, so the oEmbed answer itself changes rarely.
const OEMBED_CACHE_AGE = 3600;

const badRequest = (detail: string) => new RallyError('bad-request', detail, { code: 'invalid_oembed_request' });

function dimension(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]{0,4}$/.test(value)) throw badRequest(`${name} must be a positive integer.`);
  return Number(value);
}

export function createEmbedRoutes(deps: { db: DatabasePool; publicUrl: string }): AnyRouteSpec[] {
  const { db, publicUrl } = deps;
  const tag = 'Embeds';
  return [
    defineRoute({
      method: 'get',
      path: '/v1/oembed',
      operationId: 'getOEmbed',
      tag,
      auth: 'none',
      summary: 'Get oEmbed for a petition page',
      description: 'oEmbed (rich) for a petition page address: an iframe of the widget and its resize script.',
      query: OEmbedQuery,
      responses: {
        200: { description: 'oEmbed 1.0 answer', schema: OEmbedResponse },
        400: { description: 'Not a petition page address of this site, or an invalid maxwidth/maxheight/format' },
        404: { description: 'No public petition at that address' },
        501: { description: 'format=xml' },
      },
      async handler(ctx, { query }) {
        const format = query.format ?? 'json';
        if (format === 'xml') throw new RallyError('not-implemented', 'Only format=json is available.', { code: 'oembed_format_unsupported' });
        if (format !== 'json') throw badRequest('format must be json (or xml, which is not available).');
        if (!query.url) throw badRequest('url is required: a petition page address such as ' + `${publicUrl}/p/<slug>.`);
        const slug = slugOfPageUrl(publicUrl, query.url);
        if (!slug) throw badRequest(`url must be a petition page address on this site: ${publicUrl}/p/<slug>.`);
        const maxWidth = dimension('maxwidth', query.maxwidth);
        const maxHeight = dimension('maxheight', query.maxheight);

        const data = await loadPublicPetition(db, slug, { details: false }).catch((error: unknown) => {
          // A private petition is not known to oEmbed consumers at all.
          if (error instanceof DomainError && error.kind === 'forbidden') throw new RallyError('not-found', 'There is no such petition.');
          throw error;
        });
        const width = Math.min(DEFAULT_WIDGET_SIZE.width, maxWidth ?? Infinity);
        const height = Math.min(DEFAULT_WIDGET_SIZE.height, maxHeight ?? Infinity);
        const { petition } = data;
        const thumbnail = data.image?.variants[0];
        ctx.set('Cache-Control', `public, max-age=${OEMBED_CACHE_AGE}`);
        // Editors fetch oEmbed from the browser too.
        ctx.set('Access-Control-Allow-Origin', '*');
        ctx.body = {
          type: 'rich',
          version: '1.0',
          title: petition.title,
          provider_name: 'Rally',
          provider_url: publicUrl,
          html: widgetIframe(publicUrl, petition, { width, height }) + hostScript(publicUrl),
          width,
          height,
          cache_age: OEMBED_CACHE_AGE,
          ...(thumbnail ? { thumbnail_url: thumbnail.url, thumbnail_width: thumbnail.width, thumbnail_height: thumbnail.height } : {}),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/petitions/:id/embed',
      operationId: 'createPetitionEmbedCode',
      tag,
      auth: 'required',
      scope: 'read:petitions',
      permission: 'read',
      summary: "Create a petition's embed code",
      description: 'Embed code for your petition (creator only): an iframe of the widget and a tiny resize script.',
      params: PetitionIdParams,
      body: EmbedCodeRequest,
      responses: {
        200: { description: 'The embed code', schema: EmbedCodeEnvelope },
        403: { description: 'Not your petition' },
        409: { description: 'A private petition cannot be embedded' },
      },
      async handler(ctx, { params, body }) {
        const petition = await findPetitionById(db, params.id);
        assertCanManage(await loadViewer(db, ctx.state.principal, petition), petition);
        if (petition.visibility === 'private') {
          throw new RallyError('conflict', 'A private petition cannot be embedded: its widget is public. Make it public or unlisted first.', {
            code: 'petition_private',
          });
        }
        const options = {
          theme: body.theme ?? 'light',
          showDescription: body.show_description ?? false,
          width: body.width ?? DEFAULT_WIDGET_SIZE.width,
          height: body.height ?? DEFAULT_WIDGET_SIZE.height,
        };
        const script = hostScript(publicUrl);
        sendData(ctx, {
          html: `${widgetIframe(publicUrl, petition, options)}\n${script}`,
          iframe_url: widgetUrl(publicUrl, petition.slug, options),
          oembed_url: oembedUrl(publicUrl, petition.slug),
          script,
        });
      },
    }),
  ];
}
