import { availableParallelism } from 'node:os';

/** Jest in ESM mode (Langium is ESM-only): ts-jest transpiles; `npm run typecheck` type-checks tests. */
export default {
    testEnvironment: 'node',
    extensionsToTreatAsEsm: ['.ts'],
    moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
    transform: {
        '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.test.json' }],
    },
    setupFiles: ['<rootDir>/scripts/polyfills.mjs'],
    // dist/ holds the extension bundles and the vsix staging folder (with its own package.json).
    modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/out/'],
    testMatch: ['<rootDir>/test/**/*.test.ts'],
    testTimeout: 60000,
    // Jest's default (cores - 1: one worker, in band, on two cores). Two workers ran the suite in 44 minutes instead
    // of 56, but in one of two such runs two suites that pass in band failed (a stale row after a migration under
    // concurrent writes; an empty FT.AGGREGATE on RediSearch 1.2 answered with another error): timing under
    // contention, not yet understood. Raise it once they are.
    maxWorkers: Math.max(1, availableParallelism() - 1),
    // A worker whose heap has grown past this after a test file is replaced: each file's modules and services
    // stay reachable in it, and a worker near 2 GB spends its time collecting.
    workerIdleMemoryLimit: '1GB',
    // How long a worker has to exit once the run ends before Jest kills it and prints "A worker process has
    // failed to exit gracefully". Jest's 500 ms is less than a worker with a large heap takes to exit on a loaded
    // 2-core machine even with nothing left open (a test file that only passes prints it there): a handle left
    // open still keeps a worker past this and is still reported.
    workerGracefulExitTimeout: 5000,
    // Slowest first, from committed timings when Jest has none cached (test/support/jest-sequencer.mjs says why).
    testSequencer: '<rootDir>/test/support/jest-sequencer.mjs',
};
