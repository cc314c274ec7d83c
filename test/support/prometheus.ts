/** One scrape of Prometheus's text format: each series (name and labels) with its value. */
export class Scrape {
  private readonly series = new Map<string, number>();

  constructor(readonly text: string) {
    for (const line of text.split('\n')) {
      if (line === '' || line.startsWith('#')) continue;
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]),
      );
      this.series.set(key(match[1]!, labels), Number(match[3]));
    }
  }

  /** The series with exactly these labels; 0 when it does not exist (a counter not yet incremented). */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.series.get(key(name, labels)) ?? 0;
  }

  has(name: string, labels: Record<string, string> = {}): boolean {
    return this.series.has(key(name, labels));
  }

  /** The sum over every series of `name` whose labels include `labels`. */
  sum(name: string, labels: Record<string, string> = {}): number {
    let total = 0;
    for (const [series, value] of this.series) {
      const [seriesName, seriesLabels] = parseKey(series);
      if (seriesName !== name) continue;
      if (Object.entries(labels).every(([label, wanted]) => seriesLabels[label] === wanted)) total += value;
    }
    return total;
  }

  /** Label sets of every series of `name`. */
  labelsOf(name: string): Array<Record<string, string>> {
    return [...this.series.keys()]
      .map(parseKey)
      .filter(([seriesName]) => seriesName === name)
      .map(([, labels]) => labels);
  }
}

function key(name: string, labels: Record<string, string>): string {
  return JSON.stringify([name, Object.fromEntries(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)))]);
}

function parseKey(series: string): [string, Record<string, string>] {
  return JSON.parse(series) as [string, Record<string, string>];
}
