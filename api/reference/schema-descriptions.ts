// A description for every named schema of the document: the schema's own when it has one; else the
// resource's sentence below; else one said from its shape (an envelope, a page) or from the operations
// that send or receive it. test/api/openapi-contract.test.ts checks that none is left without.

const RESOURCES: Record<string, string> = {
  AccountDeletionStatus:
    'An account deletion: who, its accountDeletion workflow, its state (running, completed or failed) and when it was asked for and ended.',
  AccountExport: 'A personal-data export: its state, its size once built, and when its download link expires.',
  AdminMetrics: 'Platform counts for administrators: users, petitions by status, signatures, open reports, failed deliveries, running workflows.',
  AdminUser: 'A user as administrators see them: role, suspension and moderation history.',
  ApiKey: 'An API key without its secret: name, scopes, environment, the prefix that identifies it, and its state.',
  ApiKeyWithSecret: 'An API key with its raw secret (`rally_live_…` or `rally_test_…`), shown in this answer only.',
  AppAuthorization: 'An app the user authorized, with the scopes they granted it.',
  AuditEntry: 'One entry of the append-only audit log: who did what to which target, when, and what changed.',
  Category: 'A category petitions can be filed under.',
  CommentAuthor: "The public name, profile slug and avatar of a comment's author.",
  Comment: 'A comment on a petition, with its replies (up to 5 levels).',
  CountrySignatures: 'How many signatures came from one country (null when it is not known).',
  DecisionMaker: 'A person a petition is addressed to, with the delivery state of their portal invitation.',
  DecisionMakerInput: 'A person to address a petition to: name, e-mail address and optional title.',
  DecisionMakerResponse: "A decision maker's official response to a petition.",
  DeliveryAttempt: 'One attempt of a webhook delivery: when, the status code, latency, error and the first bytes of the answer.',
  DeveloperApp: 'An OAuth app you registered (never its secret).',
  EventActor: 'Who caused an event (`triggered_by`): a user, an API key, an OAuth app (by client_id), a decision maker, or Rally itself (`system`, no id).',
  FieldError: 'One field the request got wrong.',
  FlaggedCrowd: 'A group of flagged signatures sharing a network block or e-mail domain.',
  FacetValue: 'One value of a search facet and how many petitions match it.',
  GeoPoint: 'Signatures of one city over the requested hours.',
  Health: 'The health of the instance and of each dependency it needs.',
  HealthChecks: 'Whether each dependency answers: the database and Temporal.',
  Invalidation: 'A signature invalidation: the filter, its state (running or completed) and the count matched.',
  Liveness: 'The process answers.',
  Media: 'An uploaded image: its state (pending_upload, uploaded, processing, ready or failed) and, when ready, its variants.',
  Membership: "A user's membership of an organization, with their role.",
  Meta: 'What every answer carries besides its data: the request id and the time of the answer.',
  ModerationActionName: 'What an administrator decides on a report.',
  ModerationWarning: 'A warning an administrator sent a user.',
  Notification: 'An in-app notification: its type, its data and whether it was read.',
  NotificationChannels: 'Where notifications of one type go: in the app, and by e-mail.',
  NotificationChannelsPatch: 'A change to where notifications of one type go: either channel, or both.',
  NotificationPreferences: 'Per notification type, whether it is made in-app and sent by e-mail.',
  OAuthScopeName: 'A scope an OAuth app may be granted.',
  Organization: 'An organization: its public profile, tier and settings.',
  OrganizationApiKey: 'An API key that acts for an organization, without its secret.',
  OrganizationApiKeyWithSecret: "An organization's API key with its raw secret, shown in this answer only.",
  Pagination: 'Where the page ends: `next_cursor` names the next page (null on the last) and `has_more` says whether there is one.',
  Petition: "One petition as its own answers show it: the summary and when its signers' details were or will be deleted.",
  PetitionLocation: 'Where a petition is about: city, region and country, each null when not given.',
  PetitionStatus: "A petition's place in its lifecycle.",
  PetitionSummary: 'A petition as lists and most answers show it: its text, status, counts and creator.',
  PetitionUpdate: "An update a petition's creator posted to its signers.",
  PetitionVisibility: 'Who can find and read a petition.',
  PublicProfile: "A user's public profile.",
  Readiness: 'Whether the instance takes traffic: its dependencies, or that it is shutting down.',
  Report: 'A report of a petition, comment or user, and its resolution.',
  ReportStatus: "A report's state.",
  ReportTargetType: 'What a report is about.',
  ScopeName: 'An API key scope.',
  SignatureCreated: 'The signature just made, with the petition’s new count.',
  SignatureListItem: 'One signature as the petition’s signature privacy allows it to be shown.',
  SignaturePrivacy: 'Who may see the names of a petition’s signers.',
  SigningListEntry: 'An entry of the signing allow or block list: the address, network or e-mail domain it covers, and why.',
  Subscription: "An organization's tier, its limits and what is used.",
  TokenPair: 'An access token (a JWT) and the refresh token that renews it.',
  User: 'Your own profile, with your e-mail address and notification preferences.',
  WebhookDelivery: 'One delivery of an event to a webhook endpoint, with its state and attempts.',
  WebhookDeliveryStatus: "A delivery's state.",
  WebhookEndpoint: 'A webhook endpoint: its URL, the events it receives and its state (never its secret).',
  WebhookEventName: 'An event a webhook endpoint can subscribe to.',
};

type Use = { method: string; path: string; status?: string };
type Schema = { description?: string; type?: string; properties?: Record<string, { $ref?: string; items?: { $ref?: string } }> };

const refName = (ref: string | undefined) => ref?.replace('#/components/schemas/', '');

function fromShape(name: string, schema: Schema): string | undefined {
  const data = schema.properties?.data;
  if (!data || !schema.properties?.meta) return undefined;
  if (refName(data.$ref)) return `One [${refName(data.$ref)}](#/components/schemas/${refName(data.$ref)}) in \`data\`, with \`meta\`.`;
  const item = refName(data.items?.$ref);
  if (item && schema.properties.pagination) return `A page of [${item}](#/components/schemas/${item}) in \`data\`, with \`pagination\` and \`meta\`.`;
  if (item) return `A list of [${item}](#/components/schemas/${item}) in \`data\`, with \`meta\`.`;
  return name.endsWith('Envelope') ? 'The answer in its envelope: the result in `data`, with `meta`.' : undefined;
}

function fromUses(uses: Use[]): string | undefined {
  if (!uses.length) return undefined;
  const statuses = new Map<string, string[]>();
  for (const use of uses) {
    const operation = `${use.method.toUpperCase()} ${use.path}`;
    statuses.set(operation, [...(statuses.get(operation) ?? []), ...(use.status ? [use.status] : [])]);
  }
  const said = [...statuses].map(([operation, codes]) => (codes.length ? `${operation} (${codes.join(', ')})` : operation));
  return uses[0]!.status ? `The answer of ${said.join(', ')}.` : `The request body of ${said.join(', ')}.`;
}

/** Every request body and answer schema's operations, by component name. */
function usesOf(paths: Record<string, Record<string, object>>): Map<string, Use[]> {
  const uses = new Map<string, Use[]>();
  const add = (ref: unknown, use: Use) => {
    const name = refName((ref as { $ref?: string } | undefined)?.$ref);
    if (name) uses.set(name, [...(uses.get(name) ?? []), use]);
  };
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(methods) as [string, Record<string, unknown>][]) {
      const body = operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined;
      for (const media of Object.values(body?.content ?? {}).slice(0, 1)) add(media.schema, { method, path });
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, { content?: Record<string, { schema?: unknown }> }>)) {
        for (const media of Object.values(response.content ?? {}).slice(0, 1)) add(media.schema, { method, path, status });
      }
    }
  }
  return uses;
}

/** The schemas, each with a description; `events` gives a webhook payload's sentence by its component name. */
export function describeSchemas(schemas: Record<string, Schema>, paths: Parameters<typeof usesOf>[0], events: Record<string, string>): Record<string, object> {
  const uses = usesOf(paths);
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => {
      const description = schema.description ?? RESOURCES[name] ?? events[name] ?? fromShape(name, schema) ?? fromUses(uses.get(name) ?? []);
      if (!description) throw new Error(`The schema ${name} has no description: add one to api/reference/schema-descriptions.ts`);
      return [name, { description, ...schema }];
    }),
  );
}
