// Which events become notifications, for whom, and in what words. The dispatcher calls this for each
// batch it claims from the outbox, inside the same transaction, so a notification exists exactly when
// its event was dispatched; the dedupe key `event:<id>` makes a re-run harmless.
import type { NewNotification } from './create.ts';

export type DispatchedEvent = {
  id: string;
  type: string;
  actor_type: string;
  actor_id: string | null;
  petition_id: string | null;
  data: Record<string, unknown>;
  /** From the petitions table; null for events not about a petition. */
  creator_id: string | null;
  petition_title: string | null;
};

const quoted = (title: string | null) => (title ? `“${title}”` : 'your petition');

/** The event types that become notifications (`words` answers for each): the dispatcher reads no others for notifications. */
export const NOTIFIED_EVENT_TYPES = ['signature.milestone', 'petition.victory', 'response.submitted', 'response.published'] as const;

function words(event: DispatchedEvent): Pick<NewNotification, 'type' | 'title' | 'body'> | undefined {
  const petition = quoted(event.petition_title);
  switch (event.type) {
    case 'signature.milestone': {
      const reached = event.data.threshold ?? event.data.milestone ?? event.data.signature_count;
      const count = typeof reached === 'number' ? `${reached.toLocaleString('en-US')} signatures` : 'a new milestone';
      return { type: 'petition.milestone', title: `${petition} reached ${count}`, body: 'Share it again to keep the momentum going.' };
    }
    case 'petition.victory':
      return {
        type: 'petition.victory',
        title: `${petition} is marked as a victory`,
        body: typeof event.data.victory_message === 'string' ? event.data.victory_message.slice(0, 500) : 'Congratulations to everyone who signed.',
      };
    case 'response.submitted':
      return {
        type: 'response.submitted',
        title: `A decision maker answered ${petition}`,
        body: 'Read the response and decide whether to publish it on the petition page.',
      };
    case 'response.published':
      return { type: 'response.published', title: `A decision-maker response to ${petition} was published`, body: 'It is now shown on the petition page.' };
    default:
      return undefined;
  }
}

/** The creator hears about their petition's milestones, victory and decision-maker responses, except what they did themselves. */
export function notificationsForEvents(events: readonly DispatchedEvent[]): NewNotification[] {
  const notifications: NewNotification[] = [];
  for (const event of events) {
    if (!event.creator_id) continue;
    if (event.actor_type === 'user' && event.actor_id === event.creator_id) continue;
    const text = words(event);
    if (!text) continue;
    notifications.push({
      ...text,
      userId: event.creator_id,
      data: { event_id: event.id, event_type: event.type, petition_id: event.petition_id },
      dedupeKey: `event:${event.id}`,
    });
  }
  return notifications;
}
