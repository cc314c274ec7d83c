import { oneRequestUploadHeaders } from '../../src/videos/uploads/resumable-uploads.ts';
import type { TestApp, TestResponse } from './test-app.ts';

/** The tus headers that create an upload of these bytes (src/videos/uploads/resumable-uploads.ts), without any. */
export function creationHeaders(length: number, type: string): Record<string, string> {
  const { 'Content-Type': _bytesFollow, ...headers } = oneRequestUploadHeaders(length, type);
  return headers;
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
    headers: { ...oneRequestUploadHeaders(bytes.length, type), ...headers },
  });
}
