import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CUSTODY_FILE_ENV, lastPhase, readCustody, recordCustody } from '../../scripts/soak/custody.ts';

/** The soak's custody file: what the run started and where it was, read back by the supervisor. */
let dir: string;
afterEach(() => {
  delete process.env[CUSTODY_FILE_ENV];
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the soak’s custody file', () => {
  it('reads back what the run wrote, skips a line a kill cut short, and knows the last phase', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-custody-test-'));
    const file = path.join(dir, 'custody.jsonl');
    process.env[CUSTODY_FILE_ENV] = file;
    recordCustody({ phase: 'starting the system' });
    recordCustody({ postgres: '/tmp/doorstep-pg-x/data' });
    recordCustody({ dir: '/tmp/doorstep-soak-x' });
    recordCustody({ phase: 'traffic for 60 s' });
    fs.appendFileSync(file, '{"postgres":"/tmp/doorstep-pg-y/da');
    const entries = readCustody(file);
    expect(entries).toEqual([
      { phase: 'starting the system' },
      { postgres: '/tmp/doorstep-pg-x/data' },
      { dir: '/tmp/doorstep-soak-x' },
      { phase: 'traffic for 60 s' },
    ]);
    expect(lastPhase(entries)).toBe('traffic for 60 s');
  });

  it('is nothing when the run never wrote one, and writes nothing without a supervisor', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-custody-test-'));
    expect(readCustody(path.join(dir, 'missing.jsonl'))).toEqual([]);
    expect(lastPhase([])).toBeUndefined();
    recordCustody({ phase: 'alone' });
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
