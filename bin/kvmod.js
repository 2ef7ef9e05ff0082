#!/usr/bin/env node
// The kvmod command. Langium needs Object.groupBy (Node >= 21): the polyfill loads before anything else.
import '../scripts/polyfills.mjs';
import fs from 'node:fs';
import module from 'node:module';
import os from 'node:os';

// Start-up is mostly compiling the ~500 modules a command loads (Langium, Chevrotain, lodash-es…). Node 22.1 and
// later keep V8's compiled code on disk and reuse it while a module's source is unchanged: in NODE_COMPILE_CACHE,
// or os.tmpdir()/node-compile-cache; NODE_DISABLE_COMPILE_CACHE=1 turns it off. It never throws (a directory that
// cannot be written only leaves it off). Node 20 has no such API: nothing changes there.
module.enableCompileCache?.();

// `kvmod … | head` closes the pipe early: that is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error) => {
        if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
        throw error;
    });
}

// Errors raised outside a command's promise chain (an emitter without an error listener) still get the
// one-line treatment; KVMOD_DEBUG=1 shows the stack.
const internalError = (error) => {
    process.stderr.write(`kvmod: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    if (process.env.KVMOD_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    process.exit(1);
};
process.on('uncaughtException', internalError);
process.on('unhandledRejection', internalError);

// Large models: loading allocates hundreds of MB that all survive, and V8's default young generation
// (16 MB semi-spaces) copies them in hundreds of small scavenges; 32 MB semi-spaces took ~10% less CPU on
// the 1000 × 1000 grid (28.2 s instead of 31.4 s) for ~40 MB more memory. The size is fixed when node
// starts, so a run naming 1 MB or more of model files starts node once more with it; a semi-space size the
// user chose (flag or NODE_OPTIONS) wins. Set KVMOD_NO_RESPAWN=1 to keep one process.
const SEMI_SPACE_FLAG = '--max-semi-space-size=32';
const RESPAWN_BYTES = 1024 * 1024;
if (!process.env.KVMOD_NO_RESPAWN && wantsLargeYoungGeneration(process.argv.slice(2))) {
    const { spawn } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const child = spawn(
        process.execPath,
        [...process.execArgv, SEMI_SPACE_FLAG, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
        {
            stdio: 'inherit',
            env: { ...process.env, KVMOD_NO_RESPAWN: '1' },
        },
    );
    // Ctrl-C reaches both processes (one process group): the child decides; a signal sent to this pid is passed on.
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
    child.on('error', internalError);
    child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1)));
} else {
    await runMain();
}

/** True when the arguments name 1 MB or more of `.pidm`/`.kvlm` files and no semi-space size is set. */
function wantsLargeYoungGeneration(args) {
    const options = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
    if (/--(max|min)-semi-space-size|--semi-space-size/.test(options)) return false;
    let bytes = 0;
    for (const arg of args) {
        if (!/\.(pidm|kvlm)$/.test(arg)) continue;
        try {
            bytes += fs.statSync(arg).size;
        } catch {
            // Not a file (yet): the command reports it.
        }
    }
    return bytes >= RESPAWN_BYTES;
}

/**
 * The module to run: the bundle (out/cli/main.js, `node scripts/build-cli-bundle.mjs`: a few files instead of ~520
 * modules, half the start-up), else out/src itself. In an installed package (no src/: the package ships none) the
 * bundle always runs: npm writes the files in the tarball's order, so their times say nothing. In a checkout, tsc
 * may have compiled since the bundle was built: `tsc` and `tsc -b` rewrite every output they compile,
 * out/src/cli/main.js included, so a bundle older than it was built from older code and out/src runs instead (a
 * developer who recompiles without rebundling runs what they compiled). `tsc --watch` rewrites only the files it
 * recompiles: rebundle (`npm run build:ts`), or set KVMOD_NO_BUNDLE=1 to always run out/src. Two stat calls (three
 * in a checkout), no reads.
 */
function cliModule() {
    const bundle = '../out/cli/main.js';
    const compiled = '../out/src/cli/main.js';
    if (process.env.KVMOD_NO_BUNDLE) return compiled;
    const stat = (path) => fs.statSync(new URL(path, import.meta.url), { throwIfNoEntry: false });
    const bundled = stat(bundle)?.mtimeMs;
    if (bundled === undefined) return compiled;
    if (!stat('../src/cli/main.ts')) return bundle;
    const source = stat(compiled)?.mtimeMs;
    return source === undefined || bundled >= source ? bundle : compiled;
}

async function runMain() {
    // The bundle's linked source maps lead a stack back to src/*.ts; Node reads them only when asked.
    if (process.env.KVMOD_DEBUG) process.setSourceMapsEnabled?.(true);
    let main;
    try {
        ({ main } = await import(cliModule()));
    } catch (error) {
        if (error?.code !== 'ERR_MODULE_NOT_FOUND') internalError(error);
        const notBuilt = error.message.includes('/out/');
        const hint = notBuilt
            ? "kvmod is not built: run 'npm run build:ts'"
            : "a dependency is missing: run 'npm install'";
        process.stderr.write(`kvmod: ${hint} (${error.message.split('\n')[0]})\n`);
        process.exit(1);
    }
    process.exitCode = await main(process.argv.slice(2));
}
