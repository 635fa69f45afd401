// Reading Prometheus text format in tests, as a scraper does.

export type Sample = { name: string; labels: Record<string, string>; value: number };

/** Prometheus text format → samples (comments skipped). */
export function parseExposition(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
      if (!match) throw new Error(`not a Prometheus sample: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((label) => [label[1]!, label[2]!]));
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The sum of the samples of `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  return found.length === 0 ? undefined : found.reduce((sum, sample) => sum + sample.value, 0);
}
