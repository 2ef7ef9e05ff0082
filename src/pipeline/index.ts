/**
 * The functions every front end calls (CLI, language server, runtime): load → validate → transform → generate.
 */
export * from './errors.js';
export * from './load.js';
export * from './transform.js';
export * from './design.js';
export * from './generate.js';
export * from './config.js';
