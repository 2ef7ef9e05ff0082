/**
 * The reliability campaign's reproductions (issue 13), replayed through the real `kvmod` command: each must end
 * with a clear one-line error and exit 1, or with the correct result — never a crash, a hang or a printed secret.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKvmod, STACK_TRACE } from './run-kvmod.js';

const TOURNAMENT = 'examples/tournament/tournament.pidm';
let dir: string;

beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kvmod-replay-'));
});

afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
});

/** Tournament data with one round played on `playedOn`. */
function roundPlayedOn(playedOn: string): string {
    return JSON.stringify({
        Player: [{ username: 'mary', firstName: 'Mary', lastName: 'Wilson', score: 1, games: [] }],
        Game: [],
        Round: [{ _id: 'r1', number: 1, moves: 'e4', comments: '', playedOn }],
    });
}

describe('dates: years 0001-9999 as ISO allows', () => {
    test('`data check` accepts year 0042 (Date.UTC read it as 1942) and rejects year 0000', async () => {
        const data = join(dir, 'early.json');
        await writeFile(data, roundPlayedOn('0042-03-01'));
        expect(runKvmod(['data', 'check', TOURNAMENT, '--data', data])).toEqual({
            status: 0,
            stdout: '',
            stderr: `${data}: 2 objects fit ${TOURNAMENT}\n`,
        });
        await writeFile(data, roundPlayedOn('0000-03-01'));
        const rejected = runKvmod(['data', 'check', TOURNAMENT, '--data', data]);
        expect(rejected.status).toBe(1);
        expect(rejected.stderr).toBe(
            `kvmod: ${data} does not fit the model:\n${data}: Round[0] (id "r1").playedOn: "0000-03-01" is not a calendar date\n`,
        );
        expect(rejected.stderr).not.toMatch(STACK_TRACE);
    });
});
