import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real PostgreSQL (PGlite or a server) and Redis; give them room.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/support/global-setup.ts'],
    // A worker process that dies names itself and its file (see both files for why).
    setupFiles: ['test/support/worker-exit-trace.ts'],
    reporters: ['default', './test/support/unfinished-files-reporter.ts'],
  },
});
