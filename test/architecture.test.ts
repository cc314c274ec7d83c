import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IFlattenedRuleSet } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const ruleSet = JSON.parse(fs.readFileSync(path.join(root, '.dependency-cruiser.json'), 'utf8')) as {
  forbidden: IFlattenedRuleSet['forbidden'];
};

/** The rules `npm run lint` applies, run over `folders` of `baseDir`; returns the broken rules' names. */
async function violations(
  baseDir: string,
  folders: string[],
): Promise<Array<{ rule: string; from: string; to: string }>> {
  const result = await cruise(
    folders,
    {
      baseDir,
      ruleSet: { forbidden: ruleSet.forbidden },
      validate: true,
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
    },
    {},
    {},
  );
  const output = result.output as ICruiseResult;
  return output.summary.violations.map((violation) => ({
    rule: violation.rule.name,
    from: violation.from,
    to: violation.to,
  }));
}

describe('the import graph', () => {
  it('has no cycle, src/ never imports jobs/ or bin/, and production loads src/shopify/dev/ only dynamically', async () => {
    expect(await violations(root, ['src', 'jobs', 'bin'])).toEqual([]);
  });

  it('would catch all three (a fixture with a type-only cycle, src/ reaching into jobs/, a static import of dev/)', async () => {
    const found = await violations(path.join(root, 'test/fixtures/architecture'), ['src', 'jobs']);
    expect(found.map((violation) => violation.rule).sort()).toEqual([
      'no-circular',
      'production-not-to-shopify-dev',
      'src-not-to-process-edge',
    ]);
    // The dynamic import (loads-dev.ts) is allowed.
    expect(found.find((violation) => violation.rule === 'production-not-to-shopify-dev')?.from).toBe(
      'src/imports-dev.ts',
    );
  });
});

/** Module → tables it writes, as documented in docs/architecture.md ("Each table has one writing module"). */
function documentedWriters(): Map<string, string[]> {
  const doc = fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Each table has one writing module'));
  const rows = section.split('\n').filter((line) => /^\| [a-z]+ \| `/.test(line));
  return new Map(
    rows.map((line) => {
      const [, module, tables] = line.split('|').map((cell) => cell.trim());
      return [module!, [...tables!.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]!).sort()];
    }),
  );
}

/** Tables each src/<module>/ writes, read from its code (Kysely calls and raw SQL). */
function writtenTables(): Map<string, string[]> {
  const writes = new Map<string, Set<string>>();
  const walk = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((entry) =>
        entry.isDirectory()
          ? walk(path.join(dir, entry.name))
          : entry.name.endsWith('.ts')
            ? [path.join(dir, entry.name)]
            : [],
      );
  for (const file of [
    ...walk(path.join(root, 'src')),
    ...walk(path.join(root, 'jobs')),
    ...walk(path.join(root, 'bin')),
  ]) {
    const relative = path.relative(root, file).split(path.sep);
    // A migration runs once, before any module, and may reshape any table's rows to its new schema
    // (e.g. 027 marks the sent videos already recorded): it is not a writer at run time.
    if (relative.slice(0, 3).join('/') === 'src/db/migrations') continue;
    const module = relative[0] === 'src' && relative.length > 2 ? relative[1]! : relative.join('/');
    const code = fs.readFileSync(file, 'utf8');
    const patterns = [
      /(?:insertInto|updateTable|deleteFrom)\(\s*'([a-z_]+)/g,
      /\b(?:insert into|update|delete from)\s+([a-z_]+)(?:\s+set\b|\s*\(|\s+where\b|\s+values\b)/gi,
    ];
    for (const pattern of patterns) {
      for (const match of code.matchAll(pattern)) {
        if (!writes.has(module)) writes.set(module, new Set());
        writes.get(module)!.add(match[1]!.toLowerCase());
      }
    }
  }
  return new Map([...writes].map(([module, tables]) => [module, [...tables].sort()]));
}

describe('table ownership', () => {
  it('gives each table one writing module, the one docs/architecture.md names', () => {
    const documented = documentedWriters();
    expect(documented.size).toBeGreaterThan(5);
    expect(Object.fromEntries(writtenTables())).toEqual(Object.fromEntries(documented));
  });
});
