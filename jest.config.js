/** Jest in ESM mode (Langium is ESM-only): ts-jest transpiles; `npm run typecheck` type-checks tests. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.test.json' }],
  },
  setupFiles: ['<rootDir>/scripts/polyfills.mjs'],
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60000,
};
