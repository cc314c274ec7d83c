import type { TestApp, TestResponse } from './test-app.ts';

/** The tus headers that create an upload of these bytes (src/videos/resumable-uploads.ts). */
export function creationHeaders(length: number, type: string): Record<string, string> {
  return {
    'Tus-Resumable': '1.0.0',
    'Upload-Length': String(length),
    'Upload-Metadata': `filetype ${Buffer.from(type).toString('base64')}`,
  };
}

/**
 * A page's whole video in one request: tus creation-with-upload, as a page whose connection never
 * drops does it in chunks. Answers 201 with the page's JSON answer once the last byte arrived.
 */
export function sendInOneRequest(
  app: Pick<TestApp, 'request'>,
  endpoint: string,
  bytes: Buffer,
  type: string,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return app.request('POST', endpoint, {
    rawBody: bytes,
    headers: { ...creationHeaders(bytes.length, type), 'Content-Type': 'application/offset+octet-stream', ...headers },
  });
}
