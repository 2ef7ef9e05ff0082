// Types of `kvmod/config` (see lib/config.js).
export * from '../out/src/api/config.js';
