// Images made in the test with sharp, and the upload → confirm → poll steps of the media API.
import sharp from 'sharp';
import { eventually } from './events.ts';
import { json } from './http.ts';
import { bearer } from './identity.ts';
import { PUBLIC_URL } from './processes.ts';

/** A PNG with two colours, so resizing has something to do. */
export function makePng(width: number, height: number): Promise<Buffer> {
  const inner = { create: { width: Math.ceil(width / 2), height: Math.ceil(height / 2), channels: 3 as const, background: '#a23' } };
  return sharp({ create: { width, height, channels: 3, background: '#2a6' } })
    .composite([{ input: inner, left: 0, top: 0 }])
    .png()
    .toBuffer();
}

/** A JPEG as a phone makes it: camera make and the place it was taken, in EXIF. */
export function makeJpegWithGps(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#36c' } })
    .withExif({
      IFD0: { Make: 'RallyTestCam' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1', GPSLongitudeRef: 'W', GPSLongitude: '0/1 7/1 0/1', GPSMapDatum: 'WGS-84' },
    })
    .jpeg()
    .toBuffer();
}

export type UploadTicket = { media_id: string; upload_url: string; expires_at: string; max_size_bytes: number };

export function createMediaClient(baseUrl: string, token: string) {
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${baseUrl}${path}`, { ...init, headers: { 'content-type': 'application/json', ...bearer(token), ...(init.headers as object) } });
  /** Links carry PUBLIC_URL (http://rally.test); the test reaches the same API on its own port. */
  const reachable = (url: string) => url.replace(PUBLIC_URL, baseUrl);

  return {
    call,
    reachable,
    async requestUpload(entityType: string, filename: string, contentType: string): Promise<UploadTicket> {
      const response = await call('/v1/media/upload-url', {
        method: 'POST',
        body: JSON.stringify({ entity_type: entityType, filename, content_type: contentType }),
      });
      const body = await json(response);
      if (response.status !== 201) throw new Error(`upload-url failed: ${response.status} ${JSON.stringify(body)}`);
      return body.data;
    },
    put: (url: string, body: Uint8Array, contentType: string) => fetch(reachable(url), { method: 'PUT', headers: { 'content-type': contentType }, body }),
    confirm: (mediaId: string, entityId?: string) =>
      call('/v1/media/confirm', { method: 'POST', body: JSON.stringify({ media_id: mediaId, entity_id: entityId }) }),
    async media(mediaId: string) {
      return (await json(await call(`/v1/media/${mediaId}`))).data;
    },
    /** Polls GET /v1/media/{id} until processing ends (ready or failed). */
    settled(mediaId: string, timeoutMs = 40_000) {
      return eventually(
        async () => {
          const media = await this.media(mediaId);
          return media.status === 'ready' || media.status === 'failed' ? media : undefined;
        },
        timeoutMs,
        `media ${mediaId} to be processed`,
      );
    },
  };
}
