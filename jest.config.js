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
    // The fuzz tests first, whatever Jest has cached (test/support/jest-sequencer.mjs says why).
    testSequencer: '<rootDir>/test/support/jest-sequencer.mjs',
};
