// The maintained s3rver fork ships no types (@types/s3rver describes the original package): the
// part of its API the tests use.
declare module '@20minutes/s3rver' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface S3rverOptions {
    directory?: string;
    silent?: boolean;
    /** false: buckets only in the path (`/bucket/key`), never in the Host. */
    vhostBuckets?: boolean;
    configureBuckets?: Array<{ name: string; configs?: Array<string | Buffer> }>;
  }

  class S3rver {
    constructor(options?: S3rverOptions);
    /** Creates the `configureBuckets` buckets (run() does it too). */
    configureBuckets(): Promise<void>;
    /** The request handler (it is a Koa application). */
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  }

  export = S3rver;
}
