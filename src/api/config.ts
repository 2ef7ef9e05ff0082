/**
 * `kvmod/config`: what a `kvmod.config.ts` imports (`import { defineConfig } from 'kvmod/config'`). Light on
 * purpose: loading the config runs this file's import, which must not pull in Langium or node-redis.
 */
export { defineConfig, type KvmodConfig } from '../pipeline/config.js';
