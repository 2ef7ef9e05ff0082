/**
 * `kvmod load` and `kvmod verify` check the data before they write anything, and report its problems before a
 * connection error (the compiled command, as a user runs it): exactly the problems `validateInstanceData` finds.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateInstanceData, type InstanceData } from '../../src/runtime/instance-data.js';
import { loadRuntimeModel } from '../../src/runtime/runtime-design.js';
import { runKvmod } from './run-kvmod.js';

const MODEL = 'examples/airflights/airflights.pidm';
/** Nothing listens on port 1: the connection is refused at once. */
const NO_SERVER = 'redis://127.0.0.1:1';

describe('the data check of load and verify', () => {
    let dir: string;
    let good: string;
    let bad: string;
    let badData: InstanceData;

    beforeAll(() => {
        dir = mkdtempSync(join(tmpdir(), 'kvmod-data-check-'));
        good = join(dir, 'good.json');
        bad = join(dir, 'bad.json');
        const generated = runKvmod(['data', 'generate', MODEL, '--scale', '20', '-o', good]);
        expect(generated.status).toBe(0);
        badData = JSON.parse(readFileSync(good, 'utf8')) as InstanceData;
        const passengers = badData.Passenger;
        passengers[3].birthdate = '2021-02-30'; // no such day
        passengers[4].birthdate = '0000-01-01'; // no year 0
        const flown = passengers.find((p, index) => index > 4 && (p.flights as string[]).length > 0)!;
        (flown.flights as string[]).push((flown.flights as string[])[0]); // listed twice
        badData.Flight[2].origin = 'NOPE'; // dangling
        writeFileSync(bad, JSON.stringify(badData));
    });

    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it.each([['load'], ['verify']])(
        'kvmod %s reports what the data check finds, before the refused connection',
        async (command) => {
            const problems = await validateInstanceData(await loadRuntimeModel(MODEL), badData, bad);
            expect(problems.length).toBe(4);
            const run = runKvmod([command, MODEL, '--data', bad, '--redis', NO_SERVER, '--dialect', 'redisearch1']);
            expect(run.status).toBe(1);
            expect(run.stderr).toBe(`kvmod: ${bad} does not fit the model:\n${problems.join('\n')}\n`);
        },
    );

    it('a float too large for a double (1e400) is refused before anything is written', async () => {
        const huge = join(dir, 'huge.json');
        writeFileSync(huge, readFileSync(good, 'utf8').replace(/"latitude":\s*-?[\d.e+-]+/, '"latitude": 1e400'));
        const data = JSON.parse(readFileSync(huge, 'utf8')) as InstanceData;
        const problems = await validateInstanceData(await loadRuntimeModel(MODEL), data, huge);
        expect(problems).toEqual([
            expect.stringMatching(
                /^.*huge\.json: Localization\[\d+\] \(id "[^"]+"\)\.latitude: must be a finite number \(this one is too large for a float\)$/,
            ),
        ]);
        // Data that does not fit the schema is reported by ajv, loaded on demand (in the CLI bundle too).
        const run = runKvmod(['load', MODEL, '--data', huge, '--redis', NO_SERVER, '--dialect', 'redisearch1']);
        expect(run.status).toBe(1);
        expect(run.stderr).toBe(`kvmod: ${huge} does not fit the model:\n${problems.join('\n')}\n`);
    });

    it('good data on a refused connection is the connection error', () => {
        const run = runKvmod(['load', MODEL, '--data', good, '--redis', NO_SERVER, '--dialect', 'redisearch1']);
        expect(run.status).toBe(1);
        expect(run.stderr).toMatch(/^kvmod: .*127\.0\.0\.1:1/);
        expect(run.stderr).not.toMatch(/does not fit the model/);
    });

    it('a model error comes first', () => {
        const broken = join(dir, 'broken.pidm');
        writeFileSync(broken, 'x\n');
        const run = runKvmod(['load', broken, '--data', bad, '--redis', NO_SERVER]);
        expect(run.status).toBe(1);
        expect(run.stderr).toMatch(/error in the model/);
        expect(run.stderr).not.toMatch(/does not fit the model/);
    });

    // The data file is read while the model loads: its failure to read must neither come first nor go unhandled.
    it.each([['load'], ['verify']])('kvmod %s reports a model error before a data file it cannot read', (command) => {
        const broken = join(dir, 'broken.pidm');
        writeFileSync(broken, 'x\n');
        const missing = join(dir, 'missing.json');
        const run = runKvmod([command, broken, '--data', missing, '--redis', NO_SERVER]);
        expect(run.status).toBe(1);
        expect(run.stderr).toMatch(/^kvmod: 1 error in the model:\n.*broken\.pidm:1:1: /);
        expect(run.stderr).not.toMatch(/cannot read|internal error/);
        const good = runKvmod([command, MODEL, '--data', missing, '--redis', NO_SERVER]);
        expect(good.status).toBe(1);
        expect(good.stderr).toBe(`kvmod: cannot read ${missing}: no such file\n`);
    });

    // Opening a FIFO waits for its writer: read ahead, it would keep the process alive after the model's error.
    it.each([['load'], ['verify']])('kvmod %s with a broken model and a FIFO as data ends at once', (command) => {
        const broken = join(dir, 'broken.pidm');
        writeFileSync(broken, 'x\n');
        const fifo = join(dir, `data-${command}.fifo`);
        expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
        const run = runKvmod([command, broken, '--data', fifo, '--redis', NO_SERVER], { timeoutMs: 15_000 });
        expect(run.status).toBe(1);
        expect(run.stderr).toMatch(/^kvmod: 1 error in the model:\n.*broken\.pidm:1:1: /);
    });
});
