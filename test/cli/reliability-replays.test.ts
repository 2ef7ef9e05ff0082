/**
 * The reliability campaign's reproductions (issue 13), replayed through the real `kvmod` command: each must end
 * with a clear one-line error and exit 1, or with the correct result — never a crash, a hang or a printed secret.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FUZZ_FIXED_CASES } from '../../src/testing/model-fuzz.js';
import { addAclUser, startRedis, type RedisTestServer } from '../support/redis-server.js';
import { startHandshakeOnlyServer, startSilentServer } from '../support/silent-servers.js';
import { runKvmod, runKvmodAsync, STACK_TRACE, type KvmodRun } from './run-kvmod.js';

const TOURNAMENT = 'examples/tournament/tournament.pidm';
const SECRET = 'Sup3r-s3cret-pw';
let dir: string;
/** Tournament data (15 objects) for the runs that load. */
let data: string;

beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kvmod-replay-'));
    data = join(dir, 'tournament.json');
    const generated = runKvmod(['data', 'generate', TOURNAMENT, '--scale', '5', '--seed', '1', '-o', data]);
    expect(generated.status).toBe(0);
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

/** A failed run: exit 1, nothing on stdout, exactly one line on stderr, no stack trace. */
function expectOneLineFailure(run: KvmodRun, line: string): void {
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
        status: 1,
        stdout: '',
        stderr: `${line}\n`,
    });
    expect(run.stderr).not.toMatch(STACK_TRACE);
}

describe('a server that accepts the connection and never answers', () => {
    test('`load` and `verify` end after --timeout with an error naming the server (password hidden) and what did not answer', async () => {
        const silent = await startSilentServer();
        const handshakeOnly = await startHandshakeOnlyServer();
        try {
            for (const command of ['load', 'verify']) {
                const url = `redis://:${SECRET}@127.0.0.1:${silent.port}`;
                const run = await runKvmodAsync([
                    command,
                    TOURNAMENT,
                    '--data',
                    data,
                    '--redis',
                    url,
                    '--timeout',
                    '1',
                ]);
                expectOneLineFailure(
                    run,
                    `kvmod: cannot connect to redis://:***@127.0.0.1:${silent.port}: it accepted the connection but did not answer the handshake within 1 s (is it a Redis server, and not paused?)`,
                );
            }
            const url = `redis://127.0.0.1:${handshakeOnly.port}`;
            const run = await runKvmodAsync(['verify', TOURNAMENT, '--data', data, '--redis', url, '--timeout', '1']);
            expectOneLineFailure(
                run,
                `kvmod: ${url} did not answer MODULE within 1 s (busy, paused, or not Redis? --timeout sets the limit)`,
            );
        } finally {
            await silent.close();
            await handshakeOnly.close();
        }
    }, 120_000);

    test('a --timeout that is not a positive number is a usage error', () => {
        const run = runKvmod([
            'load',
            TOURNAMENT,
            '--data',
            'd.json',
            '--redis',
            'redis://127.0.0.1:1',
            '--timeout',
            '0',
        ]);
        expect(run.status).toBe(2);
        expect(run.stderr).toContain('--timeout must be a positive number of seconds, got 0');
    });

    test('a --batch that is not a whole number of rows from 1 is a usage error (NaN made an internal error)', () => {
        for (const [command, batch, shown] of [
            ['load', 'abc', 'NaN'],
            ['load', '0', '0'],
            ['verify', '2.5', '2.5'],
            ['migrate', '-3', '-3'],
        ]) {
            const run = runKvmod([
                command,
                TOURNAMENT,
                '--data',
                'd.json',
                '--redis',
                'redis://127.0.0.1:1',
                '--batch',
                batch,
            ]);
            expect([command, run.status]).toEqual([command, 2]);
            expect(run.stderr).toBe(
                `kvmod: --batch must be a whole number of rows from 1, got ${shown}\nusage: kvmod ${command} ${command === 'migrate' ? '<old> [new]' : '<model>'}\nRun 'kvmod ${command} --help' for usage.\n`,
            );
        }
    });
});

describe('credentials: a requirepass server, an ACL user, TLS', () => {
    let redis: RedisTestServer;

    beforeAll(async () => {
        redis = await startRedis({ requirepass: SECRET });
        await addAclUser(redis.port, SECRET, 'alice', `${SECRET}-alice`);
    });
    afterAll(async () => {
        await redis?.stop();
    });

    test('NOAUTH and WRONGPASS are clear errors; the right password and an ACL user load and verify; no output shows the secret', async () => {
        const port = redis.port;
        const outputs: string[] = [];
        const run = async (args: string[]) => {
            const result = await runKvmodAsync(args);
            outputs.push(result.stdout + result.stderr);
            return result;
        };
        expectOneLineFailure(
            await run(['load', TOURNAMENT, '--data', data, '--redis', `redis://127.0.0.1:${port}`]),
            `kvmod: redis://127.0.0.1:${port} requires a password: give it in the URL, redis://:PASSWORD@host:port (or redis://USER:PASSWORD@host:port for an ACL user)`,
        );
        expectOneLineFailure(
            await run(['verify', TOURNAMENT, '--data', data, '--redis', `redis://:${SECRET}x@127.0.0.1:${port}`]),
            `kvmod: cannot log in to redis://:***@127.0.0.1:${port}: the server refused the user name or password (WRONGPASS)`,
        );
        const loaded = await run(['load', TOURNAMENT, '--data', data, '--redis', redis.url]);
        expect(loaded.status).toBe(0);
        expect(loaded.stderr).toContain(`loaded 44 rows into redis://:***@127.0.0.1:${port} (redisearch1, detected)\n`);
        const verified = await run([
            'verify',
            TOURNAMENT,
            '--data',
            data,
            '--redis',
            `redis://alice:${SECRET}-alice@127.0.0.1:${port}`,
        ]);
        expect(verified.stderr).toContain(`loaded 44 rows into redis://alice:***@127.0.0.1:${port} (redisearch1)`);
        expect(verified.stdout).toContain('all 5 queries match the oracle');
        expect(verified.status).toBe(0);
        for (const output of outputs) expect(output).not.toContain(SECRET);
    }, 120_000);

    test('rediss:// loads through TLS with a private CA trusted by NODE_EXTRA_CA_CERTS', async () => {
        const made = spawnSync(
            'openssl',
            ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1']
                .concat(['-addext', 'subjectAltName=IP:127.0.0.1'])
                .concat(['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')]),
            { encoding: 'utf8' },
        );
        expect(made.status).toBe(0);
        const tls = await startRedis({
            requirepass: SECRET,
            tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') },
        });
        try {
            const shown = `rediss://:***@127.0.0.1:${tls.port}`;
            const untrusted = await runKvmodAsync(['load', TOURNAMENT, '--data', data, '--redis', tls.url]);
            expectOneLineFailure(
                untrusted,
                `kvmod: cannot connect to ${shown}: TLS failed: self-signed certificate (to trust a private CA: NODE_EXTRA_CA_CERTS=ca.pem)`,
            );
            const trusted = await runKvmodAsync(['load', TOURNAMENT, '--data', data, '--redis', tls.url], {
                env: { NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') },
            });
            expect(trusted.stderr).toContain(`loaded 44 rows into ${shown} (redisearch1, detected)\n`);
            expect(trusted.status).toBe(0);
            expect(untrusted.stderr + trusted.stdout + trusted.stderr).not.toContain(SECRET);
        } finally {
            await tls.stop();
        }
    }, 120_000);
});

describe('the KVLM loader on the text that crashed it', () => {
    test('`validate` and `generate` report syntax errors and exit 1: no internal error, no stack, no undefined', async () => {
        const path = join(dir, 'recovered.kvlm');
        await writeFile(path, FUZZ_FIXED_CASES.kvlm[0]!);
        for (const args of [
            ['validate', path],
            ['generate', path, '-o', join(dir, 'out')],
        ]) {
            const run = runKvmod(args);
            expect(run.status).toBe(1);
            const output = run.stdout + run.stderr;
            expect(output).toContain(
                `${path}:1:1: error: Expecting 'database' but found 'tournament'. [syntax.parser]`,
            );
            expect(output).not.toMatch(STACK_TRACE);
            expect(output).not.toMatch(/internal|undefined/);
        }
    }, 60_000);
});

describe('a key of the design holding something else', () => {
    let redis: RedisTestServer;

    beforeAll(async () => {
        redis = await startRedis();
    });
    afterAll(async () => {
        await redis?.stop();
    });

    test('the pointer key of a stable name holding a hash: the server and the refused command, not an internal error', async () => {
        const cli = (...argv: string[]) =>
            spawnSync('redis-cli', ['-p', String(redis.port), ...argv], { encoding: 'utf8' }).stdout.trim();
        const loaded = await runKvmodAsync(['load', TOURNAMENT, '--data', data, '--redis', redis.url]);
        expect(loaded.status).toBe(0);
        const pointer = cli('--scan', '--pattern', 'kvmod:index:*').split('\n').sort()[0]!;
        expect(pointer).toMatch(/^kvmod:index:\w+$/);
        expect(cli('DEL', pointer)).toBe('1');
        expect(cli('HSET', pointer, 'not', 'kvmod')).toBe('1');
        for (const command of ['load', 'verify'])
            expectOneLineFailure(
                await runKvmodAsync([command, TOURNAMENT, '--data', data, '--redis', redis.url]),
                `kvmod: ${redis.url} refused GET ${pointer}: WRONGTYPE Operation against a key holding the wrong kind of value`,
            );
        // Nothing of the design's was changed on its account: the hash is still there.
        expect(cli('TYPE', pointer)).toBe('hash');
    }, 120_000);
});
