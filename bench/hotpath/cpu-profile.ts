/**
 * Reads a V8 `.cpuprofile` (node --cpu-prof) and says where the thread went: self time per function
 * and per package or source folder, and inclusive time (the function and what it called) per
 * function. `fromMs` drops the samples before that many milliseconds into the profile (start-up:
 * module loading, bundling the pages' scripts), so the figures are of the load alone.
 *
 *   node --import tsx bench/hotpath/cpu-profile.ts FILE [fromMs] [top]
 */
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const shortUrl = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*node_modules\//, 'nm:')
    .replace(/^.*?\/(src|bench|bin|jobs)\//, '$1/');

function nameOf(node: ProfileNode): string {
  const url = shortUrl(node.callFrame.url);
  return `${node.callFrame.functionName || '(anonymous)'}${url ? ` ${url}:${node.callFrame.lineNumber + 1}` : ''}`;
}

function placeOf(node: ProfileNode): string {
  const url = shortUrl(node.callFrame.url);
  if (!url) return node.callFrame.functionName;
  if (url.startsWith('nm:'))
    return url
      .split('/')
      .slice(0, url.startsWith('nm:@') ? 2 : 1)
      .join('/');
  return url.split('/').slice(0, 2).join('/');
}

export function summarizeProfile(file: string, fromMs = 0, top = 30): string {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const self = new Map<string, number>();
  const places = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let at = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < fromMs * 1000) return;
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') {
      idle++;
      return;
    }
    total++;
    self.set(nameOf(node), (self.get(nameOf(node)) ?? 0) + 1);
    places.set(placeOf(node), (places.get(placeOf(node)) ?? 0) + 1);
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const name = nameOf(byId.get(n)!);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + 1);
    }
  });
  const table = (map: Map<string, number>, n: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, hits]) => `  ${((100 * hits) / Math.max(1, total)).toFixed(1).padStart(5)}%  ${name}`)
      .join('\n');
  return [
    `${total} busy samples (${idle} idle) from ${fromMs} ms on; percentages of the busy ones`,
    `self time by place:\n${table(places, top)}`,
    `self time by function:\n${table(self, top)}`,
    `inclusive time by function:\n${table(inclusive, top * 2)}`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, fromMs, top] = process.argv.slice(2);
  if (!file) throw new Error('usage: cpu-profile.ts FILE [fromMs] [top]');
  process.stdout.write(`${summarizeProfile(file, Number(fromMs ?? 0), Number(top ?? 30))}\n`);
}
