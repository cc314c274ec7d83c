import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The pages' browser scripts are checked like the rest of the code: `npm run typecheck` compiles
 * them with their own tsconfig (DOM types, no Node types) and `npm run lint` lints them with browser
 * globals. This proves a type error there is caught, not silently left out of both.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BROWSER_DIR = path.join(ROOT, 'src/videos/browser');
const RECORD_PAGE = path.join(BROWSER_DIR, 'record-page.ts').replaceAll(path.sep, '/');

/** Type errors in the browser project, with `extra` appended to record-page.ts. */
function browserTypeErrors(extra = ''): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path.join(BROWSER_DIR, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  )!;
  expect(parsed.errors).toEqual([]);
  expect(parsed.fileNames).toContain(RECORD_PAGE);
  const host = ts.createCompilerHost(parsed.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => (fileName === RECORD_PAGE ? readFile(fileName) + extra : readFile(fileName));
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, host });
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? path.relative(ROOT, d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
    );
}

describe('the browser scripts', () => {
  it('are in `npm run typecheck`', () => {
    const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<
      string,
      string
    >;
    expect(scripts.typecheck).toContain('tsc --noEmit -p src/videos/browser');
  });

  it('type-check clean against the DOM, and a type error or a Node global in them is caught', () => {
    expect(browserTypeErrors()).toEqual([]);
    const errors = browserTypeErrors('\nconst title: number = document.title;\nexport const env = process.env;\n');
    expect(errors).toEqual([
      expect.stringMatching(/record-page\.ts: Type 'string' is not assignable to type 'number'/),
      expect.stringMatching(/record-page\.ts: Cannot find name 'process'/),
    ]);
  }, 60_000);

  it('are linted with browser globals', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    for (const name of ['record-page.ts', 'watch-page.ts']) {
      const file = path.join(BROWSER_DIR, name);
      expect(await eslint.isPathIgnored(file)).toBe(false);
      const config = await eslint.calculateConfigForFile(file);
      expect(config.languageOptions.globals).toMatchObject({
        document: expect.anything(),
        navigator: expect.anything(),
        MediaRecorder: expect.anything(),
      });
    }
  });
});
