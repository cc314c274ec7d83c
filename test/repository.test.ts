import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * A clone with nothing beside it must build, test and explain itself: no tracked file may point at
 * the build machine's disk or at the team's shared folder beside the checkout (its notes, spec and
 * test data are copied into docs/ and test/fixtures/). .ci/run runs the suite in such a clone.
 */
const root = fileURLToPath(new URL('..', import.meta.url));

const FORBIDDEN: { name: string; pattern: RegExp }[] = [
  { name: 'the team folder beside the checkout', pattern: /\.\.\/shared\b/ },
  { name: 'an absolute path of the build machine', pattern: /\/work\/|\/root\/|\/Users\/|\/home\/[^/\s]+\// },
  // A drive letter on its own, a colon, one or two backslashes (as written in a string), a directory.
  { name: 'an absolute Windows path', pattern: /(?<![A-Za-z0-9])[A-Za-z]:\\{1,2}[\w .-]+\\/ },
];

// Integrity hashes only; a chance match there says nothing about the machine.
const EXEMPT = new Set(['package-lock.json']);

/** The tracked files, or why they cannot be listed (then the check is skipped, saying so). */
function trackedFiles(): { files: string[] } | { reason: string } {
  let top: string;
  try {
    top = execFileSync('git', ['rev-parse', '--show-toplevel'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch (error) {
    return { reason: `not a git checkout (${(error as Error).message.split('\n')[0]})` };
  }
  if (realpathSync(top) !== realpathSync(root))
    return { reason: `${root} is not the top of its git checkout (${top} is)` };
  const listing = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' });
  return { files: listing.split('\0').filter((file) => file !== '') };
}

describe('the repository stands alone', () => {
  const tracked = trackedFiles();

  it('lists its tracked files with git', (context) => {
    if ('reason' in tracked) return context.skip(tracked.reason);
    expect(tracked.files).toContain('package.json');
    expect(tracked.files).toContain('test/fixtures/tracking-number-vectors.json');
  });

  it('has no absolute machine path and no reference to the shared folder in any tracked file', (context) => {
    if ('reason' in tracked) return context.skip(tracked.reason);
    const found: string[] = [];
    for (const file of tracked.files) {
      if (EXEMPT.has(file)) continue;
      let text: string;
      try {
        text = readFileSync(join(root, file), 'utf8');
      } catch {
        continue; // deleted in the working tree but not yet in the index
      }
      if (text.includes('\0')) continue; // binary
      text.split('\n').forEach((line, index) => {
        for (const { name, pattern } of FORBIDDEN) {
          if (pattern.test(line)) found.push(`${file}:${index + 1}: ${name}: ${line.trim().slice(0, 120)}`);
        }
      });
    }
    expect(found).toEqual([]);
  });

  it('would notice each kind of path it forbids', () => {
    // Put together at run time, so that this file does not contain what it forbids.
    const examples = [
      ['see ..', 'shared', 'DESIGN.md'],
      ["readFileSync('", 'work', 'shared', "x')"],
      ['', 'home', 'dev', 'x'],
      ['', 'root', '.cache'],
      ['', 'Users', 'dev', 'x'],
    ]
      .map((parts) => parts.join('/'))
      .concat(['C:', 'Users', 'dev', 'x'].join('\\'), ['"C:', 'Users', 'dev"'].join('\\\\'));
    expect(examples.filter((line) => !FORBIDDEN.some(({ pattern }) => pattern.test(line)))).toEqual([]);
    const innocent = [
      'Invalid configuration:\\n  S3_BUCKET',
      'docs/design.md §2',
      'https://example.com/workflow/',
      'a:\\n  b',
    ];
    expect(innocent.filter((line) => FORBIDDEN.some(({ pattern }) => pattern.test(line)))).toEqual([]);
  });
});
