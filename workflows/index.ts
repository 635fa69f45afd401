// Every workflow the worker runs. The worker bundles this file; tests and clients import names
// (and the signals, queries and updates exported beside each workflow) from here.
export { purgeIdempotencyKeys } from './purge-idempotency-keys.ts';
export { apiKeyRotation, apiKeyRotationWorkflowId, rotationStatusQuery } from './api-key-rotation.ts';
