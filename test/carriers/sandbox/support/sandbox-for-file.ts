import { beforeEach } from 'vitest';
import {
  startCarrierSandbox,
  type RunningCarrierSandbox,
  type SandboxOptions,
} from '../../../../src/carriers/sandbox/index.ts';
import { forFile } from '../../../support/for-file.ts';
import { SandboxControl } from './control.ts';

/**
 * The carrier sandbox for the file (or the describe block it is called in) with its control API,
 * reset before each test so one test's packages, faults and call counts never reach the next.
 */
export function carrierSandboxForFile(
  use: (started: { running: RunningCarrierSandbox; control: SandboxControl }) => void,
  options?: SandboxOptions,
): void {
  let running: RunningCarrierSandbox | undefined;
  forFile(
    async () => {
      running = await startCarrierSandbox(options);
      return { running, control: new SandboxControl(running.baseUrl) };
    },
    use,
    (started) => started.running.close(),
  );
  beforeEach(() => running?.sandbox.reset());
}
