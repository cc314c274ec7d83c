import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger.ts';

/** Slow clients must not hold sockets forever (a slowloris guard); uploads get the request timeout. */
const HEADERS_TIMEOUT_MS = 20_000;
const REQUEST_TIMEOUT_MS = 300_000;

/**
 * The web process's HTTP server: one place for its settings, so the tests' app (test/support/test-app.ts)
 * runs on the server production runs on.
 */
export function createWebServer(logger: Logger, listener?: http.RequestListener): http.Server {
  const server = listener ? http.createServer(listener) : http.createServer();
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket, logger));
  return server;
}

/**
 * What Node's parser refused before there was a request for Koa to answer: a URL or headers over
 * Node's 16 KB, a line that is not HTTP, headers that never finished. Node's own answer is a bare
 * status line with no body; every other bad request gets a JSON body saying what is wrong, so these do
 * too (the statuses are Node's: 431, 413, 408, else 400). Logged once at info: the client's mistake,
 * not ours, and without the raw bytes (they may hold personal data).
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, logger: Logger): void {
  const [status, message] = clientErrorAnswer(error.code);
  logger.info({ code: error.code, status }, 'refused a request that is not readable HTTP');
  // A reset socket cannot be answered, and one whose response has begun must not get a second.
  const inProgress = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ error: { type: TYPES[status], message } });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Cache-Control: no-store\r\n' +
      'Connection: close\r\n\r\n' +
      body,
  );
}

const TYPES: Record<number, string> = {
  400: 'invalid_request',
  408: 'request_timeout',
  413: 'payload_too_large',
  431: 'headers_too_large',
};

function clientErrorAnswer(code: string | undefined): [number, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [
        431,
        `The request line and headers are over ${Math.round(http.maxHeaderSize / 1024)} KB together; send a shorter URL or fewer headers.`,
      ];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'The chunked body carries too many chunk extensions.'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'The request did not arrive in time; send it again in one go.'];
    default:
      return [400, 'The request is not valid HTTP/1.1 and could not be read.'];
  }
}
