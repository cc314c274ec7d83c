import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/processes.ts';

/**
 * The Dockerfile cannot be built here (no Docker engine), so its shape is checked: stages, base
 * image, a non-root user, and that every COPY names something that exists. A small parser of
 * Dockerfile instructions is enough for that (continuation lines joined, comments dropped).
 */
interface Instruction {
  keyword: string;
  args: string;
}

function parseDockerfile(text: string): Instruction[] {
  const logical = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return logical.map((line) => {
    const match = /^(\w+)\s+(.*)$/.exec(line);
    if (!match) throw new Error(`not an instruction: ${line}`);
    return { keyword: match[1]!.toUpperCase(), args: match[2]! };
  });
}

const instructions = parseDockerfile(fs.readFileSync(path.join(projectRoot, 'Dockerfile'), 'utf8'));
const stages = instructions
  .filter((i) => i.keyword === 'FROM')
  .map((i) => {
    const [image, , alias] = i.args.split(/\s+/);
    return { image: image!, alias };
  });
/** Instructions of the last stage: what the running container is. */
const finalStage = instructions.slice(instructions.map((i) => i.keyword).lastIndexOf('FROM'));

describe('Dockerfile', () => {
  it('is multi-stage on Node 24, every base image pinned (no `latest`)', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const { image } of stages) {
      expect(image).toMatch(/^node:24[.-]/);
      expect(image).not.toMatch(/:latest$|^[^:]+$/);
    }
  });

  it('installs from the lockfile with npm ci, production dependencies only in what runs', () => {
    const runs = instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(runs.some((r) => /npm ci\b/.test(r) && !/--omit=dev/.test(r))).toBe(true);
    expect(runs.some((r) => /npm ci\b.*--omit=dev/.test(r))).toBe(true);
    expect(finalStage.some((i) => i.keyword === 'RUN' && /npm (ci|install)/.test(i.args))).toBe(false);
  });

  it('has ffmpeg in what runs: the worker makes every upload’s playback rendition with it', () => {
    expect(finalStage.some((i) => i.keyword === 'RUN' && /apt-get install\b.*\bffmpeg\b/.test(i.args))).toBe(true);
  });

  it('runs as a non-root USER', () => {
    const users = finalStage.filter((i) => i.keyword === 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)!.args).not.toMatch(/^(root|0)(:|$)/);
    // Nothing after USER switches back.
    const last = finalStage.map((i) => i.keyword).lastIndexOf('USER');
    expect(finalStage.slice(last + 1).some((i) => i.keyword === 'USER')).toBe(false);
  });

  it('copies only files that exist (or come from an earlier stage)', () => {
    const aliases = new Set(stages.map((s) => s.alias).filter(Boolean));
    for (const copy of instructions.filter((i) => i.keyword === 'COPY')) {
      const parts = copy.args.split(/\s+/);
      const from = parts.find((p) => p.startsWith('--from='))?.slice('--from='.length);
      const paths = parts.filter((p) => !p.startsWith('--'));
      const sources = paths.slice(0, -1);
      if (from) {
        expect(aliases.has(from), copy.args).toBe(true);
        continue;
      }
      for (const source of sources) expect(fs.existsSync(path.join(projectRoot, source)), source).toBe(true);
    }
  });

  it('keeps what the runtime copies out of .dockerignore, and local state in it', () => {
    const ignored = fs
      .readFileSync(path.join(projectRoot, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'data', '.git', '.env']));
    const copied = instructions
      .filter((i) => i.keyword === 'COPY' && !i.args.includes('--from='))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    for (const source of copied) expect(ignored, source).not.toContain(source);
  });

  it('starts the web role with the entry point npm start uses, and tells Docker its port', () => {
    const cmd = JSON.parse(finalStage.find((i) => i.keyword === 'CMD')!.args) as string[];
    const packageJson = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(cmd.join(' ')).toBe(packageJson.scripts.start);
    expect(finalStage.find((i) => i.keyword === 'EXPOSE')?.args).toBe('3000');
    // tsx, the loader in that command, is copied into the runtime stage.
    expect(finalStage.some((i) => i.keyword === 'COPY' && /node_modules\/tsx/.test(i.args))).toBe(true);
  });
});
