// Processing of one confirmed upload (id `media-<media id>`, search attribute RallyMediaId), its steps shown one by one in the Web UI: mark processing, check
// the real type, render and store the variants, attach them. A step failing for a passing reason is retried; a file that is not a valid image fails the media
// at once with the reason the uploader sees at GET /v1/media/{id}. Either way the original is then deleted.
import { FAILURE_TYPES } from '../core/vocabulary.ts';
import { ActivityFailure, ApplicationFailure, proxyActivities, type RetryPolicy } from '@temporalio/workflow';
import type { MediaActivities } from '../activities/media.ts';

const RETRY: RetryPolicy = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 8 };

const { markMediaProcessing, attachMedia, markMediaFailed, discardOriginal } = proxyActivities<MediaActivities>({
  startToCloseTimeout: '1 minute',
  retry: RETRY,
});

// Reading and rendering big images can take a while; the heartbeat, not the overall timeout,
// notices a worker that died in the middle.
const { inspectUpload, makeMediaVariants } = proxyActivities<MediaActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '5 seconds',
  retry: RETRY,
});

// Kept in step with activities/media.ts (the workflow sandbox cannot import it as a value).
const IMAGE_REJECTED = FAILURE_TYPES.imageRejected;

export type MediaProcessingInput = { mediaId: string };
export type MediaProcessingResult = { mediaId: string; status: 'ready' | 'failed'; reason?: string };

export function mediaProcessingWorkflowId(mediaId: string): string {
  return `media-${mediaId}`;
}

function reasonFor(failure: ActivityFailure): string {
  const cause = failure.cause;
  if (cause instanceof ApplicationFailure && cause.type === IMAGE_REJECTED) return cause.message;
  // Infrastructure details stay in the workflow history, not in what the uploader reads.
  return 'The image could not be processed after several attempts. Upload it again later.';
}

export async function mediaProcessing({ mediaId }: MediaProcessingInput): Promise<MediaProcessingResult> {
  let result: MediaProcessingResult;
  try {
    await markMediaProcessing({ mediaId });
    const { width, height } = await inspectUpload({ mediaId });
    const variants = await makeMediaVariants({ mediaId });
    await attachMedia({ mediaId, width, height, variants });
    result = { mediaId, status: 'ready' };
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    const reason = reasonFor(error);
    await markMediaFailed({ mediaId, reason });
    result = { mediaId, status: 'failed', reason };
  }
  await discardOriginal({ mediaId });
  return result;
}
