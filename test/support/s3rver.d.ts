// The part of s3rver (a local S3-compatible server, test-only) that the tests use; it ships no types.
declare module 's3rver' {
  type S3rverOptions = { port?: number; address?: string; directory: string; silent?: boolean; configureBuckets?: { name: string }[] };
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
