import { nodeHandler } from '../../http/node-handler.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCarrierSandbox, type CarrierSandbox } from './app.ts';
import type { SandboxOptions } from './state.ts';

export interface RunningCarrierSandbox {
  /** `http://127.0.0.1:PORT/sandbox`; a client's baseUrl is this plus `/ups`, `/fedex` or `/usps`. */
  baseUrl: string;
  sandbox: CarrierSandbox;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 at a free port, for tests and local demos. */
export async function startCarrierSandbox(options: SandboxOptions = {}): Promise<RunningCarrierSandbox> {
  const sandbox = createCarrierSandbox(options);
  const server = createServer(nodeHandler(sandbox.app));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/sandbox`,
    sandbox,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets (fetch keeps them) would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}
