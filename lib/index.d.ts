// Types of the library entry: the API module's declarations (see lib/index.js).
export * from '../out/src/api/index.js';
