// Uploaded images: a local folder or any S3-compatible store, and the signed upload URLs.

import { Type, type StaticDecode } from '@sinclair/typebox';
import type { Config, S3Settings } from './types.ts';
import { duration, integer, text, url } from './variables.ts';

// Public on purpose, like the other development secrets: production must set its own (platform/config/checks.ts).
export const DEVELOPMENT_MEDIA_SIGNING_KEY = 'rally-development-media-signing-key';

export const mediaVariables = {
  RALLY_UPLOAD_URL_TTL: duration('RALLY_UPLOAD_URL_TTL', { default: '15m', description: 'validity of a media upload URL' }),
  RALLY_MEDIA_DIR: Type.Optional(text({ defaultText: '`$RALLY_DATA_DIR/media`', description: 'local media storage, used when `S3_ENDPOINT` is unset' })),
  RALLY_MEDIA_MAX_BYTES: integer(1_000_000_000, { default: 10 * 1024 * 1024, defaultText: '`10485760` (10 MiB)', description: 'largest accepted upload' }),
  RALLY_MEDIA_SIGNING_KEY: text({
    default: DEVELOPMENT_MEDIA_SIGNING_KEY,
    defaultText: 'a public development key; **required in production**',
    description: 'signs local upload URLs',
  }),
  S3_ENDPOINT: Type.Optional(
    url('http-url', {
      defaultText: 'unset (local storage)',
      description:
        "any S3-compatible store, addressed path-style, through AWS's SDK (`@aws-sdk/client-s3`, pre-signed " +
        'upload URLs by `@aws-sdk/s3-request-presigner`; loaded only when set). `S3_BUCKET`, ' +
        '`S3_ACCESS_KEY_ID` and `S3_SECRET_ACCESS_KEY` are then required.',
    }),
  ),
  S3_BUCKET: Type.Optional(text({ defaultText: '—', description: 'the bucket; required with `S3_ENDPOINT`' })),
  S3_ACCESS_KEY_ID: Type.Optional(text({ defaultText: '—', description: 'access key id; required with `S3_ENDPOINT`' })),
  S3_SECRET_ACCESS_KEY: Type.Optional(text({ defaultText: '—', description: 'secret access key; required with `S3_ENDPOINT`' })),
  S3_REGION: text({ default: 'us-east-1', description: "the store's region, as its signatures name it" }),
  S3_PUBLIC_URL: Type.Optional(
    url('http-url', { defaultText: '`$S3_ENDPOINT/$S3_BUCKET`', description: 'where the processed variants are publicly readable' }),
  ),
};

type Values = StaticDecode<ReturnType<typeof Type.Object<typeof mediaVariables>>>;

export function mediaSettings(values: Values, dataDir: string) {
  const { S3_ENDPOINT: endpoint, S3_BUCKET: bucket, S3_ACCESS_KEY_ID: accessKeyId, S3_SECRET_ACCESS_KEY: secretAccessKey } = values;
  // All three are present whenever S3_ENDPOINT is (the s3Complete check).
  const s3: S3Settings | undefined =
    endpoint && bucket && accessKeyId && secretAccessKey
      ? Object.freeze({ endpoint, bucket, region: values.S3_REGION, accessKeyId, secretAccessKey, publicUrl: values.S3_PUBLIC_URL ?? `${endpoint}/${bucket}` })
      : undefined;
  return {
    uploadUrlTtlMs: values.RALLY_UPLOAD_URL_TTL,
    media: Object.freeze({
      dir: values.RALLY_MEDIA_DIR ?? `${dataDir}/media`,
      maxBytes: values.RALLY_MEDIA_MAX_BYTES,
      signingKey: values.RALLY_MEDIA_SIGNING_KEY,
      s3,
    }),
  } satisfies Partial<Config>;
}
