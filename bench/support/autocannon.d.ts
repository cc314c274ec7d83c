// autocannon ships no types; this declares the part of its documented API the bench uses.
declare module 'autocannon' {
  export interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    overallRate?: number;
    timeout?: number;
    requests?: Array<{ setupRequest?: (request: RequestParams) => RequestParams }>;
  }
  export interface Histogram {
    average: number;
    p50: number;
    p99: number;
    [key: string]: number;
  }
  export interface Result {
    duration: number;
    requests: Histogram & { total: number };
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    start: Date;
    finish: Date;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
