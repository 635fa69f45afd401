// Imported first by worker/main.ts: tracing must be in place before HTTP, pg and undici are loaded.
import { bootstrapObservability } from '../platform/telemetry.ts';

bootstrapObservability('rally-worker');
