import net from 'node:net';

export interface CuttingProxy {
  /** `http://127.0.0.1:{port}`: load pages through it. */
  url: string;
  /** Bytes the browser sent through the proxy, all connections together. */
  bytesFromClient(): number;
  /** How many connections it cut. */
  cuts(): number;
  /** The `Upload-Offset` of each request starting with the marker, in order (tus PATCHes). */
  offsets(): number[];
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of the app that cuts one connection the way a phone's network does: once a
 * request starting with `marker` (e.g. `PATCH `) has carried `cutAfterBytes` more bytes, both
 * sockets are destroyed mid-body. Every other byte passes untouched, so the real page and the real
 * server see exactly what they would see on a network that drops.
 */
export async function startCuttingProxy(target: URL, marker: string, cutAfterBytes: number): Promise<CuttingProxy> {
  let fromClient = 0;
  let cuts = 0;
  const offsets: number[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let counting: number | null = null;
    let dead = false;
    client.on('data', (chunk: Buffer) => {
      if (dead) return;
      fromClient += chunk.length;
      // A request's head arrives whole in its first chunk (a few hundred bytes).
      for (let at = chunk.indexOf(marker, 0, 'latin1'); at >= 0; at = chunk.indexOf(marker, at + 1, 'latin1')) {
        const head = chunk
          .subarray(at, at + 4096)
          .toString('latin1')
          .split('\r\n\r\n')[0]!;
        const offset = /\r\nupload-offset: *(\d+)/i.exec(head)?.[1];
        if (offset !== undefined) offsets.push(Number(offset));
      }
      if (cuts === 0 && counting === null) {
        const at = chunk.indexOf(marker, 0, 'latin1');
        if (at >= 0) counting = -at;
      }
      if (counting !== null && cuts === 0) {
        counting += chunk.length;
        if (counting >= cutAfterBytes) {
          cuts += 1;
          // What arrived before the cut reaches the server; then the line goes dead both ways.
          dead = true;
          upstream.write(chunk.subarray(0, Math.max(0, chunk.length - (counting - cutAfterBytes))), () => {
            client.destroy();
            upstream.destroy();
          });
          return;
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', closeBoth).on('close', closeBoth);
    upstream.on('error', closeBoth).on('close', closeBoth);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bytesFromClient: () => fromClient,
    cuts: () => cuts,
    offsets: () => [...offsets],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
