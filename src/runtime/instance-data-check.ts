/**
 * The instance-data check on a second thread (a worker of `startDataCheck`, instance-data.ts): it reads and parses
 * the data file itself as soon as it starts, waits for the model, runs `validateInstanceData` and posts the problems
 * (none: an empty list). The main thread meanwhile loads the model, parses its own copy and connects, so the check no
 * longer stands between reading the data and the first write. A file that is not JSON is reported by the main
 * thread's parse: the worker then posts nothing but `undefined`.
 */
import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { validateInstanceData } from './instance-data.js';
import type { RuntimeModel } from './runtime-model.js';

const { path } = workerData as { path: string };
const parsed: Promise<unknown> = readFile(path, 'utf8').then(
    (text) => JSON.parse(text) as unknown,
    () => undefined,
);
parentPort!.once('message', (model: RuntimeModel) => {
    void parsed.then(
        (data) => parentPort!.postMessage(data === undefined ? undefined : validateInstanceData(model, data, path)),
        () => parentPort!.postMessage(undefined),
    );
});
