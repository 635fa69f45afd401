// Every SQL in core/ and api/ that reads `petitions` and filters it by status or visibility must do so through the shared rule (core/petitions/visibility.ts,
// through policy.ts or PUBLICLY_LISTED), so that who may see a petition is written once. Exceptions are the queries that check one exact status for a state
// change, or that filter on something other than who may see; each has a reason.
import { expect } from 'chai';
import { sourceFiles, sqlTemplates } from '../../support/source-scan.ts';

const READS_PETITIONS = /\b(?:FROM|JOIN)\s+petitions\b/i;
// A status or visibility compared with a literal or a parameter: `status = 'x'`, `p.visibility <> ${v}`, `status NOT IN ('a', 'b')`.
const FILTER = /\b(?:\w+\.)?(?:status|visibility)\s*(?:=|<>|!=|\bNOT\s+IN\b|\bIN\b|=\s*ANY)\s*\(?\s*(?:'[^']*'|\$\{[^}]*\})/gi;
const SHARED = /\$\{\s*(?:knownTo|visibleTo|listedTo|manageableBy|managedBy|PUBLICLY_LISTED|fragment)\b/;

const ALLOWED: readonly { file: string; condition: string; reason: string }[] = [
  {
    file: 'core/moderation/restoring.ts',
    condition: "status = 'under_review'",
    reason: 'a restore applies only to a petition that moderation hid (a state change)',
  },
  {
    file: 'core/signatures/sign-statement.ts',
    condition: "live.status = 'active'",
    reason: 'only an active petition takes signatures (a state rule, not who may see)',
  },
  {
    file: 'core/guest-signatures/emails.ts',
    condition: "g.status = 'pending'",
    reason: 'the status of guest signatures (unconfirmed ones get a reminder), joined to petitions for their title',
  },
  { file: 'core/moderation/metrics.ts', condition: "status = 'open'", reason: 'the status of reports, in a statement that also counts petitions by status' },
  { file: 'core/moderation/metrics.ts', condition: "status = 'failed'", reason: 'the status of webhook deliveries, in the same statement' },
  {
    file: 'core/analytics/fold.ts',
    condition: "p.visibility = 'public'",
    reason:
      'what goes into the platform rollups, not who may see: readers choose what to show (platform stats ' +
      'through PUBLICLY_LISTED); the queue rows a fold takes are gone for good, so it cannot wait for a ' +
      'petition to be published',
  },
];

const normalize = (text: string) => text.replace(/\s+/g, ' ').trim();

function offenders() {
  const found: string[] = [];
  const used = new Set<(typeof ALLOWED)[number]>();
  for (const file of sourceFiles('core', 'api')) {
    for (const template of sqlTemplates(file)) {
      if (!READS_PETITIONS.test(template.text) || SHARED.test(template.text)) continue;
      for (const [condition] of template.text.matchAll(FILTER)) {
        const allowed = ALLOWED.find((entry) => entry.file === file && entry.condition === normalize(condition));
        if (allowed) used.add(allowed);
        else found.push(`${file}:${template.line}: ${normalize(condition)}`);
      }
    }
  }
  return { found, unused: ALLOWED.filter((entry) => !used.has(entry)).map((entry) => `${entry.file}: ${entry.condition}`) };
}

describe('SQL that reads petitions (source scan of core/ and api/)', () => {
  it('filters petitions by status or visibility only through the shared visibility rule', () => {
    expect(offenders().found).to.deep.equal([]);
  });

  it('keeps no allow-list entry that matches no query any more', () => {
    expect(offenders().unused).to.deep.equal([]);
  });

  it('finds the SQL templates it scans (a scanner that finds nothing proves nothing)', () => {
    const reading = sourceFiles('core', 'api')
      .flatMap(sqlTemplates)
      .filter((template) => READS_PETITIONS.test(template.text));
    expect(reading.length).to.be.greaterThan(20);
    expect(reading.some((template) => template.file === 'core/moderation/reports.ts')).to.equal(true);
  });
});
