// The plain words an operator reads next to a workflow or an activity in Temporal's Web UI, from the
// business facts only their start sites know (a petition's title, a webhook endpoint's host). Plain
// strings, so orchestration/ and activities/ alike can write them.
const MAX_TITLE = 80;

function shortTitle(title: string): string {
  return title.length > MAX_TITLE ? `${title.slice(0, MAX_TITLE - 1)}…` : title;
}

/** Only the host of a webhook URL: its path and query may carry the receiver's own secrets. */
export function endpointHost(url: string): string {
  return URL.parse(url)?.host ?? 'an invalid URL';
}

export function deliverySummary(delivery: { event_type: string; endpoint_url: string; petition_title: string | null }): string {
  const about = delivery.petition_title ? ` for "${shortTitle(delivery.petition_title)}"` : '';
  return `Webhook ${delivery.event_type}${about} to ${endpointHost(delivery.endpoint_url)}`;
}

export function petitionSummary(title: string): string {
  return `Petition "${shortTitle(title)}"`;
}

/** A round of milestone crossings told to the signers who listen (orchestration/petitions.ts). */
export function milestoneRoundSummary(notices: readonly { title: string }[]): string {
  if (notices.length === 1) return `Tell the signers who listen: ${shortTitle(notices[0]!.title)}`;
  return `Tell the signers who listen of ${notices.length.toLocaleString('en-US')} milestones (first: ${shortTitle(notices[0]!.title)})`;
}
