// Shapes of the oEmbed answer (oEmbed 1.0, type "rich": a bare JSON object, no envelope) and of the
// embed-code operation.
import { Type } from '@sinclair/typebox';
import { Meta } from '../http/envelopes.ts';

// Strings on purpose: the spec answers 400 (not 422) to an invalid oEmbed request, checked in the handler.
export const OEmbedQuery = Type.Object({
  url: Type.Optional(Type.String({ description: 'A petition page address: {site_url}/p/{slug} (a query string is allowed)' })),
  maxwidth: Type.Optional(Type.String({ description: 'Positive integer: the widest the iframe may be' })),
  maxheight: Type.Optional(Type.String({ description: 'Positive integer: the tallest the iframe may be' })),
  format: Type.Optional(Type.String({ description: 'json (default); xml answers 501' })),
});

export const OEmbedResponse = Type.Object({
  type: Type.Literal('rich'),
  version: Type.Literal('1.0'),
  title: Type.String(),
  provider_name: Type.String(),
  provider_url: Type.String(),
  html: Type.String(),
  width: Type.Integer(),
  height: Type.Integer(),
  cache_age: Type.Integer(),
  thumbnail_url: Type.Optional(Type.String()),
  thumbnail_width: Type.Optional(Type.Integer()),
  thumbnail_height: Type.Optional(Type.Integer()),
});

export const EmbedCodeRequest = Type.Object(
  {
    theme: Type.Optional(Type.Union([Type.Literal('light'), Type.Literal('dark'), Type.Literal('auto')], { default: 'light' })),
    width: Type.Optional(Type.Integer({ minimum: 200, maximum: 1200, default: 400 })),
    height: Type.Optional(Type.Integer({ minimum: 120, maximum: 2000, default: 240 })),
    show_description: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);

export const EmbedCodeEnvelope = Type.Object({
  data: Type.Object({
    html: Type.String({ description: 'The iframe and the host script, to paste into a page' }),
    iframe_url: Type.String(),
    oembed_url: Type.String(),
    script: Type.String({ description: 'The host script alone: resizes the iframe on rally:resize from Rally only' }),
  }),
  meta: Meta,
});

export const PetitionIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
