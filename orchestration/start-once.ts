// The options of a start a request makes for one resource: a workflow id started once (a second start of it
// is refused), tagged with the kind of resource for the Web UI's filters. Callers pass the start through
// orUnavailable, so a Temporal out of reach is the one 503 and the transaction that asked for it rolls back.
import type { SearchAttributePair } from '@temporalio/common';
import { RallyEntityType } from '../workflows/search-attributes.ts';
import type { Temporal } from './client.ts';

/**
 * `entity` is the RallyEntityType the Web UI filters by (api_key, media, …); `tags` the resource's own
 * search attributes (its id, its petition, …).
 */
export function onceFor(temporal: Temporal, workflowId: string, entity: string, tags: SearchAttributePair[] = []) {
  return {
    workflowId,
    taskQueue: temporal.taskQueue,
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
    typedSearchAttributes: [...tags, { key: RallyEntityType, value: entity }],
  };
}
