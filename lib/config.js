// `kvmod/config`: defineConfig for a kvmod.config.ts (see src/api/config.ts); light, unlike the main entry.
export * from '../out/src/api/config.js';
