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

    // The text's problems and an empty identifier are found by `data check` and refused by `load` before it connects
    // (redis-core wrote 34 keys before refusing an empty identifier with a confusing message).
    it.each([
        [
            'an escaped lone surrogate',
            (text: string) => text.replace(/"firstname": "[^"]*"/, '"firstname": "Wil\\ud800son"'),
            'data.lone-surrogate',
            /:\d+:\d+: \\ud800 is a high surrogate without the low one after it: /,
        ],
        [
            'a byte that is not UTF-8',
            (text: string) => text.replace(/"firstname": "/, '"firstname": "\u0000'),
            'data.encoding',
            /:\d+:\d+: the file is not UTF-8 text: byte 0xff /,
        ],
        [
            'a repeated key',
            (text: string) => text.replace(/"firstname":/, '"sex": "F", "firstname":'),
            'data.duplicate-key',
            /:\d+:\d+: the key "sex" is given twice in this object/,
        ],
        [
            'an empty identifier',
            (text: string) => text.replace(/"idPassport": "[^"]*"/, '"idPassport": ""'),
            'data.invalid',
            /:\d+:\d+: Passenger\[0\]\.idPassport: the identifier is empty; /,
        ],
    ])('%s is refused by data check and before load connects, on every target', (_label, edit, _code, message) => {
        const path = join(dir, `edited-${_code}.json`);
        // The NUL placeholder becomes a byte 0xff, which no UTF-8 text holds.
        const text = edit(readFileSync(good, 'utf8'));
        const bytes = Buffer.from(text, 'utf8');
        const nul = bytes.indexOf(0);
        if (nul !== -1) bytes[nul] = 0xff;
        writeFileSync(path, bytes);
        for (const target of ['redis', 'redis-core']) {
            const check = runKvmod(['data', 'check', MODEL, '--data', path, '--target', target]);
            expect(check.status).toBe(1);
            expect(check.stderr).toMatch(message);
            expect(check.stderr.startsWith(`kvmod: ${path}`)).toBe(true);
            const load = runKvmod(['load', MODEL, '--data', path, '--redis', NO_SERVER, '--target', target]);
            expect(load.status).toBe(1);
            expect(load.stderr).toBe(check.stderr);
        }
    });

    it('a data file with a byte-order mark is read as without it', () => {
        const path = join(dir, 'bom.json');
        writeFileSync(path, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(good)]));
        const check = runKvmod(['data', 'check', MODEL, '--data', path]);
        expect(check.stderr).toBe(`${path}: 120 objects fit ${MODEL}\n`);
        expect(check.status).toBe(0);
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
