#!/usr/bin/env node
// The kvmod command. Langium needs Object.groupBy (Node >= 21): the polyfill loads before anything else.
import '../scripts/polyfills.mjs';

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

let main;
try {
    ({ main } = await import('../out/src/cli/main.js'));
} catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') internalError(error);
    const notBuilt = error.message.includes('/out/');
    const hint = notBuilt ? "kvmod is not built: run 'npm run build:ts'" : "a dependency is missing: run 'npm install'";
    process.stderr.write(`kvmod: ${hint} (${error.message.split('\n')[0]})\n`);
    process.exit(1);
}
process.exitCode = await main(process.argv.slice(2));
