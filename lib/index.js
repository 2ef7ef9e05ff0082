// The package's library entry (`import … from 'kvmod'`): the Node 20 polyfill Langium's parser needs
// (Object.groupBy) loads first, then the API module the TypeScript build emits. Documented in docs/command-line.md.
import '../scripts/polyfills.mjs';
export * from '../out/src/api/index.js';
