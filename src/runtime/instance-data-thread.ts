/**
 * The instance-data check on a second thread, started by the `load` and `verify` commands as soon as they run (before
 * they load the model): the thread (instance-data-check.ts) reads and parses the data file at once and checks it when
 * it is given the model, while the main thread loads the model, parses its own copy and connects. Only the first
 * write waits for the verdict (`readInstanceDataChecked`, instance-data.ts). This module imports nothing heavy: the
 * command handlers load it before the runtime.
 */
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { RuntimeModel } from './runtime-model.js';

/** The check of a data file running on a second thread (`startDataCheck`). */
export interface DataCheck {
    /** Hands the model to the check (once): the thread checks its own parse of the file against it. */
    start(model: RuntimeModel): void;
    /** The problems `validateInstanceData` finds; `undefined` when the thread could not tell (then check here). */
    problems(): Promise<string[] | undefined>;
    /** Stops the thread (idempotent; a finished thread has stopped already). */
    stop(): void;
}

/**
 * Files up to this size are checked on a second thread; larger ones here (the thread holds a second parse of the
 * file: twice the memory).
 */
const THREADED_CHECK_BYTES = 64 * 1024 * 1024;

/**
 * Starts checking a data file on a second thread (instance-data-check.ts), which reads and parses it at once and
 * checks it when `start` gives it the model. `undefined` when there is no compiled worker module (a
 * run from the TypeScript sources: tests) or the file is missing or large; the caller then checks on its own thread.
 */
export async function startDataCheck(path: string): Promise<DataCheck | undefined> {
    const script = new URL('./instance-data-check.js', import.meta.url);
    if (!import.meta.url.endsWith('.js') || !existsSync(script)) return undefined;
    try {
        if ((await stat(path)).size > THREADED_CHECK_BYTES) return undefined;
    } catch {
        return undefined; // not readable: readInstanceData says so
    }
    let worker: Worker;
    try {
        worker = new Worker(script, { workerData: { path } });
    } catch {
        return undefined; // no thread to be had: the caller checks on its own thread
    }
    // A thread nobody waits for never keeps the process alive; one whose verdict is awaited does (`problems`).
    worker.unref();
    const verdict = new Promise<string[] | undefined>((resolve) => {
        worker.once('message', (problems: string[] | undefined) => resolve(problems));
        // A thread that fails or ends without a verdict leaves the check to the main thread.
        worker.once('error', () => resolve(undefined));
        worker.once('exit', () => resolve(undefined));
    });
    let stopped = false;
    const stop = (): void => {
        if (stopped) return;
        stopped = true;
        void worker.terminate();
    };
    return {
        start: (model) => {
            try {
                // The entities are all the check reads.
                worker.postMessage({ entities: model.entities } satisfies RuntimeModel);
            } catch {
                stop(); // not sent: the thread ends without a verdict, and the caller checks on its own thread
            }
        },
        problems: () => {
            if (!stopped) worker.ref();
            return verdict.finally(stop);
        },
        stop,
    };
}
