import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/net/free-port.ts';

const RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range';

describe('freePort', () => {
  it('gives a port a server can listen on', async () => {
    const port = await freePort();
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });

  // Outgoing connections take their local port from the ephemeral range: a port from there can be
  // gone by the time the child listens (CI's "Port … already in use").
  it.runIf(existsSync(RANGE_FILE))('on Linux, picks below the ephemeral range', async () => {
    const ephemeralLow = Number(readFileSync(RANGE_FILE, 'utf8').trim().split(/\s+/)[0]);
    for (let i = 0; i < 20; i++) expect(await freePort()).toBeLessThan(ephemeralLow);
  });
});
