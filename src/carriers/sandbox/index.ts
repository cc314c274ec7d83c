export { createCarrierSandbox, type CarrierSandbox } from './app.ts';
export { SANDBOX_STATUSES, type SandboxStatus } from './packages.ts';
export { startCarrierSandbox, type RunningCarrierSandbox } from './server.ts';
export type { SandboxOptions } from './state.ts';
