// The dashboard and the alert rules only name series Rally exports (platform/metrics.ts): a renamed
// metric must not leave a panel or an alert silently empty.
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { registry } from '../../platform/metrics.ts';

const exported = new Set(registry.getMetricsAsArray().map((metric) => metric.name));
const HISTOGRAM_PARTS = /_(bucket|sum|count)$/;

async function rallySeriesIn(file: string): Promise<string[]> {
  const text = await readFile(new URL(`../../${file}`, import.meta.url), 'utf8');
  return [...new Set(text.match(/\brally_[a-z_]+/g) ?? [])].filter((name) => name !== 'rally_dashboard');
}

describe('ops/ dashboards and alerts', () => {
  for (const file of ['ops/grafana/rally-dashboard.json', 'ops/prometheus/alerts.yaml']) {
    it(`${file} names only series Rally exports`, async () => {
      const names = await rallySeriesIn(file);
      expect(names.length).to.be.greaterThan(5);
      for (const name of names) {
        expect(exported.has(name) || exported.has(name.replace(HISTOGRAM_PARTS, '')), name).to.equal(true);
      }
    });
  }

  it('every alert links a section of docs/operations/runbook.md that exists', async () => {
    const alerts = await readFile(new URL('../../ops/prometheus/alerts.yaml', import.meta.url), 'utf8');
    const runbook = await readFile(new URL('../../docs/operations/runbook.md', import.meta.url), 'utf8');
    const anchors = new Set(
      [...runbook.matchAll(/^## (.+)$/gm)].map((heading) =>
        heading[1]!
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    const links = [...alerts.matchAll(/runbook: docs\/operations\/runbook\.md#([a-z0-9-]+)/g)].map((link) => link[1]!);
    expect(links.length).to.equal([...alerts.matchAll(/- alert: /g)].length);
    for (const link of links) expect(anchors.has(link), link).to.equal(true);
  });
});
