/**
 * The connection to Redis: timeouts against listeners that never answer, NOAUTH / WRONGPASS / ACL users and
 * TLS against a real redis-server, and the one redaction every printed URL goes through.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KvmodError, refusalMessage } from '../../src/pipeline/errors.js';
import {
    connectRedis,
    describeCommand,
    RedisConnectionLost,
    RedisErrorReply,
} from '../../src/runtime/redis-connection/redis-link.js';
import { respBatch } from '../../src/runtime/redis-connection/redis-resp.js';
import { redactRedisUrl } from '../../src/runtime/redis-connection/redis-url.js';
import { addAclUser, redisCli, startRedis, type RedisTestServer } from '../support/redis-server.js';
import { startHandshakeOnlyServer, startHttpServer, startSilentServer } from '../support/silent-servers.js';

const SECRET = 'hunter2-s3cret';

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
    try {
        await promise;
    } catch (error) {
        return error as Error & { code?: string };
    }
    throw new Error('expected a rejection');
}

describe('redacting URLs', () => {
    test.each([
        ['redis://:s3cret@127.0.0.1:6379', 'redis://:***@127.0.0.1:6379'],
        ['redis://alice:p@ss:w0rd@host:6379/2', 'redis://alice:***@host:6379/2'],
        ['rediss://alice:x@host', 'rediss://alice:***@host'],
        ['redis://host:6379', 'redis://host:6379'],
        ['redis://alice@host:6379', 'redis://alice@host:6379'],
        ['redis//:s3cret@host', 'redis//:***@host'],
        ['redis://:a/b#c@host', 'redis://:***@host'],
        ['redis://127.0.0.1:6379?password=s3cret', 'redis://127.0.0.1:6379?password=***'],
        ['redis://host:6379/0?user=alice&password=s3cret&db=2', 'redis://host:6379/0?user=alice&password=***&db=2'],
        ['redis://host:6379/?Password=s3cret', 'redis://host:6379/?Password=***'],
    ])('%s is printed as %s', (url, shown) => {
        expect(redactRedisUrl(url)).toBe(shown);
    });
});

describe('URLs kvmod cannot use', () => {
    test.each([
        [`http://:${SECRET}@host:6379`, 'http://:***@host:6379'],
        [`redis://:${SECRET}@127.0.0.1:6379/not-a-db`, 'redis://:***@127.0.0.1:6379/not-a-db'],
        [`redis//:${SECRET}@host`, 'redis//:***@host'],
    ])('%s is a clear error without the password', async (url, shown) => {
        const error = await rejection(connectRedis(url));
        expect(error.code).toBe('redis.url');
        expect(error.message).toBe(
            `not a Redis URL: ${shown} (expected redis://host:port or rediss://host:port, optionally user:password@ before the host and /db after it)`,
        );
    });
});

describe('timeouts', () => {
    test('a listener that accepts and never answers fails the connection after the timeout, naming the server without its password', async () => {
        const server = await startSilentServer();
        try {
            const started = Date.now();
            const error = await rejection(
                connectRedis(`redis://:${SECRET}@127.0.0.1:${server.port}`, { timeoutSeconds: 0.5 }),
            );
            expect(error).toBeInstanceOf(KvmodError);
            expect(error.code).toBe('redis.timeout');
            expect(error.message).toBe(
                `cannot connect to redis://:***@127.0.0.1:${server.port}: it accepted the connection but did not answer the handshake within 0.5 s (is it a Redis server, and not paused?)`,
            );
            expect(Date.now() - started).toBeLessThan(10_000);
        } finally {
            await server.close();
        }
    });

    test('a server that falls silent after the handshake fails the command after the timeout', async () => {
        const server = await startHandshakeOnlyServer();
        try {
            const link = await connectRedis(`redis://127.0.0.1:${server.port}`, { timeoutSeconds: 0.5 });
            const error = await rejection(link.send(['PING']));
            expect(error).toBeInstanceOf(RedisConnectionLost);
            expect(error.code).toBe('redis.timeout');
            expect(error.message).toBe(
                `redis://127.0.0.1:${server.port} did not answer PING within 0.5 s (busy, paused, or not Redis? --timeout sets the limit)`,
            );
            await link.close();
        } finally {
            await server.close();
        }
    });

    test('a server that falls silent fails every command of a pipelined batch after the timeout, naming the first', async () => {
        const server = await startHandshakeOnlyServer();
        try {
            const link = await connectRedis(`redis://127.0.0.1:${server.port}`, { timeoutSeconds: 0.5 });
            const replies = await link.sendBatch!(respBatch([['HSET', 'a', 'f', '1'], ['PING']]));
            expect(replies.map((reply) => reply.status)).toEqual(['rejected', 'rejected']);
            for (const reply of replies) {
                const reason = (reply as PromiseRejectedResult).reason as RedisConnectionLost;
                expect(reason).toBeInstanceOf(RedisConnectionLost);
                expect(reason.code).toBe('redis.timeout');
                expect(reason.message).toBe(
                    `redis://127.0.0.1:${server.port} did not answer HSET within 0.5 s (busy, paused, or not Redis? --timeout sets the limit)`,
                );
            }
            await link.close();
        } finally {
            await server.close();
        }
    });

    test('a port that answers in another protocol (HTTP) is a clear error at once, not a timeout', async () => {
        const server = await startHttpServer();
        try {
            const error = await rejection(connectRedis(`redis://127.0.0.1:${server.port}`, { timeoutSeconds: 30 }));
            expect(error.code).toBe('redis.connect');
            expect(error.message).toBe(
                `cannot connect to redis://127.0.0.1:${server.port}: it answered, but not in the Redis protocol (is it a Redis server?)`,
            );
        } finally {
            await server.close();
        }
    });

    test('a connection given up while it opens is closed at once (node-redis alone would leave it to its connect timeout)', async () => {
        // A TLS handshake that never comes: the socket is still opening when the link gives up, where node-redis's
        // destroy() does not reach it.
        const closed: number[] = [];
        const listener = createServer((socket) => {
            socket.on('data', () => undefined);
            socket.on('close', () => closed.push(Date.now()));
        });
        await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
        const port = (listener.address() as AddressInfo).port;
        try {
            const started = Date.now();
            const error = await rejection(connectRedis(`rediss://127.0.0.1:${port}`, { timeoutSeconds: 1 }));
            expect(error.code).toBe('redis.timeout');
            expect(error.message).toBe(
                `cannot connect to rediss://127.0.0.1:${port}: no TLS connection within 1 s (is the port serving TLS? a firewall dropping packets, or a wrong host?)`,
            );
            // The socket is closed with the failure, well before node-redis's own connect timeout (4 s).
            await new Promise((resolve) => setTimeout(resolve, 200));
            expect(closed).toHaveLength(1);
            expect(closed[0] - started).toBeLessThan(3_000);
        } finally {
            listener.close();
        }
    });

    test('a refused connection is a clear error', async () => {
        const server = await startSilentServer();
        const port = server.port;
        await server.close();
        const error = await rejection(connectRedis(`redis://127.0.0.1:${port}`, { timeoutSeconds: 5 }));
        expect(error.message).toBe(`cannot connect to redis://127.0.0.1:${port}: connection refused`);
    });
});

describe('authentication on a real redis-server with requirepass', () => {
    let redis: RedisTestServer;

    beforeAll(async () => {
        redis = await startRedis({ search: false, requirepass: SECRET });
        await addAclUser(redis.port, SECRET, 'alice', `${SECRET}-alice`);
    });
    afterAll(async () => {
        await redis?.stop();
    });

    test('no password: NOAUTH becomes an error saying how to give one', async () => {
        const link = await connectRedis(`redis://127.0.0.1:${redis.port}`);
        try {
            const error = await rejection(link.send(['PING']));
            expect(error).toBeInstanceOf(KvmodError);
            expect(error.code).toBe('redis.auth');
            expect(error.message).toBe(
                `redis://127.0.0.1:${redis.port} requires a password: give it in the URL, redis://:PASSWORD@host:port (or redis://USER:PASSWORD@host:port for an ACL user)`,
            );
        } finally {
            await link.close();
        }
    });

    test('a wrong password: WRONGPASS becomes an error naming the server, not the password', async () => {
        const error = await rejection(connectRedis(`redis://:wrong-${SECRET}@127.0.0.1:${redis.port}`));
        expect(error.code).toBe('redis.auth');
        expect(error.message).toBe(
            `cannot log in to redis://:***@127.0.0.1:${redis.port}: the server refused the user name or password (WRONGPASS)`,
        );
    });

    test('the password in the URL, and an ACL user with its own password, log in', async () => {
        for (const url of [redis.url, `redis://alice:${SECRET}-alice@127.0.0.1:${redis.port}`]) {
            const link = await connectRedis(url);
            try {
                expect(link.url).not.toContain(SECRET);
                expect(await link.send(['PING'])).toBe('PONG');
            } finally {
                await link.close();
            }
        }
        const error = await rejection(connectRedis(`redis://alice:wrong@127.0.0.1:${redis.port}`));
        expect(error.message).toBe(
            `cannot log in to redis://alice:***@127.0.0.1:${redis.port}: the server refused the user name or password (WRONGPASS)`,
        );
    });

    test('logs in as node-redis did: a user without a password (an ACL user with nopass), and no SELECT for /0', async () => {
        const admin = ['-a', SECRET, '--no-auth-warning'];
        await redisCli(redis.port, [...admin, 'ACL', 'SETUSER', 'bob', 'on', 'nopass', '+@all', '~*']);
        await redisCli(redis.port, [...admin, 'ACL', 'SETUSER', 'carol', 'on', '>c', '+@all', '-select', '~*']);
        for (const [url, user] of [
            [`redis://bob@127.0.0.1:${redis.port}`, 'bob'],
            [`redis://carol:c@127.0.0.1:${redis.port}/0`, 'carol'],
        ]) {
            const link = await connectRedis(url);
            try {
                expect(await link.send(['ACL', 'WHOAMI'])).toBe(user);
            } finally {
                await link.close();
            }
        }
        // A database other than 0 is selected, and refused to a user denied SELECT.
        const error = await rejection(connectRedis(`redis://carol:c@127.0.0.1:${redis.port}/1`));
        expect(error.message).toMatch(/^cannot connect to redis:\/\/carol:\*\*\*@127\.0\.0\.1:\d+\/1: NOPERM /);
    });

    test('a pipelined batch (sendBatch) logs in as the URL says and writes into its database; each command settles with its own reply', async () => {
        const urls = [`${redis.url}/3`, `redis://alice:${SECRET}-alice@127.0.0.1:${redis.port}/4`];
        for (const [position, url] of urls.entries()) {
            const link = await connectRedis(url);
            try {
                const key = `batch:${position}`;
                const long = Array.from({ length: 30_000 }, (_, i) => `${i}é`).join(' ');
                const replies = await link.sendBatch!(
                    respBatch([
                        ['SET', key, 'é'],
                        ['HSET', key, 'f', '1'],
                        ['APPEND', key, 'x'],
                        // A reply longer than one read (64 KB): the decoder gets it in pieces.
                        ['SET', `${key}:long`, long],
                        ['GET', `${key}:long`],
                    ]),
                );
                expect(replies.map((reply) => (reply.status === 'fulfilled' ? reply.value : reply.status))).toEqual([
                    'OK',
                    'rejected',
                    3, // bytes: é is two in UTF-8 (the RESP lengths count bytes)
                    'OK',
                    long,
                ]);
                expect(((replies[1] as PromiseRejectedResult).reason as Error).message).toBe(
                    'WRONGTYPE Operation against a key holding the wrong kind of value',
                );
                // The batch went to the URL's database: the link's own connection reads it there, database 0 does not.
                expect(await link.send(['GET', key])).toBe('éx');
                expect(
                    (await redisCli(redis.port, ['-a', SECRET, '--no-auth-warning', 'GET', key])).stdout.trim(),
                ).toBe('');
            } finally {
                await link.close();
            }
        }
    });

    test('sendBatch writes a batch before it returns (not a turn of the event loop later)', async () => {
        const link = await connectRedis(`redis://:${SECRET}@127.0.0.1:${redis.port}/6`);
        try {
            // The first batch opens the bulk connection; the next goes out at once.
            expect(await link.sendBatch!(respBatch([['PING']]))).toEqual([{ status: 'fulfilled', value: 'PONG' }]);
            const replies = link.sendBatch!(respBatch([['SET', 'written:at-once', 'yes']]));
            // Another process reads the key while this one has not turned its event loop since the call.
            const seen = spawnSync(
                'redis-cli',
                ['-p', String(redis.port), '-a', SECRET, '--no-auth-warning', '-n', '6', 'GET', 'written:at-once'],
                { encoding: 'utf8' },
            );
            expect(seen.stdout.trim()).toBe('yes');
            expect(await replies).toEqual([{ status: 'fulfilled', value: 'OK' }]);
        } finally {
            await link.close();
        }
    });

    test('a batch far larger than the pipe’s window (written in slices as replies come back): every reply in its place', async () => {
        const link = await connectRedis(`redis://:${SECRET}@127.0.0.1:${redis.port}/5`);
        try {
            // 20,000 commands of about 150 bytes: several times the 256 KB the pipe keeps unanswered; two batches at once.
            const value = 'v'.repeat(100);
            const commands = (tag: string) =>
                Array.from({ length: 20_000 }, (_, i) =>
                    i === 12_345 ? ['HSET', `${tag}:7`, 'f', '1'] : ['SET', `${tag}:${i}`, `${value}${i}`],
                );
            const [first, second] = await Promise.all([
                link.sendBatch!(respBatch(commands('a'))),
                link.sendBatch!(respBatch(commands('b'))),
            ]);
            for (const replies of [first, second]) {
                expect(replies).toHaveLength(20_000);
                const refused = replies.flatMap((reply, i) => (reply.status === 'rejected' ? [i] : []));
                expect(refused).toEqual([12_345]);
                expect(
                    replies.every(
                        (reply, i) => i === 12_345 || (reply as PromiseFulfilledResult<unknown>).value === 'OK',
                    ),
                ).toBe(true);
            }
            expect(await link.send(['GET', 'b:19999'])).toBe(`${value}19999`);
            expect(await link.send(['DBSIZE'])).toBe(39_998); // the SET of key 12,345 replaced by the refused HSET
        } finally {
            await link.close();
        }
    });

    test('the bulk connection logs in as the link did; a login refused in between is a lost connection without the password', async () => {
        const admin = ['-a', SECRET, '--no-auth-warning'];
        await redisCli(redis.port, [...admin, 'ACL', 'SETUSER', 'dave', 'on', '>d-pass', '+@all', '~*']);
        const link = await connectRedis(`redis://dave:d-pass@127.0.0.1:${redis.port}/7`);
        try {
            await redisCli(redis.port, [...admin, 'ACL', 'SETUSER', 'dave', 'resetpass', '>other']);
            const error = await rejection(link.openBulk!());
            expect(error).toBeInstanceOf(RedisConnectionLost);
            expect(error.message).toBe(
                `lost the connection to redis://dave:***@127.0.0.1:${redis.port}/7: its bulk connection's login was refused: WRONGPASS invalid username-password pair or user is disabled.`,
            );
            // A batch then fails the same way, command by command.
            const [reply] = await link.sendBatch!(respBatch([['SET', 'k', 'v']]));
            expect((reply as PromiseRejectedResult).reason).toBeInstanceOf(RedisConnectionLost);
        } finally {
            await link.close();
        }
    });

    test('a pipelined batch without the password: every command is refused with the advice to give one', async () => {
        const link = await connectRedis(`redis://127.0.0.1:${redis.port}`);
        try {
            const [reply] = await link.sendBatch!(respBatch([['SET', 'k', 'v']]));
            expect(reply.status).toBe('rejected');
            const reason = (reply as PromiseRejectedResult).reason as KvmodError;
            expect(reason.code).toBe('redis.auth');
            expect(reason.message).toBe(
                `redis://127.0.0.1:${redis.port} requires a password: give it in the URL, redis://:PASSWORD@host:port (or redis://USER:PASSWORD@host:port for an ACL user)`,
            );
        } finally {
            await link.close();
        }
    });
});

describe('TLS (rediss://) on a real redis-server with a self-signed certificate', () => {
    let redis: RedisTestServer;
    let plain: RedisTestServer;
    let dir: string;

    beforeAll(async () => {
        dir = await mkdtemp(join(tmpdir(), 'kvmod-tls-'));
        const made = spawnSync(
            'openssl',
            ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1']
                .concat(['-addext', 'subjectAltName=IP:127.0.0.1'])
                .concat(['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')]),
            { encoding: 'utf8' },
        );
        expect({ status: made.status, stderr: made.status === 0 ? '' : made.stderr }).toEqual({
            status: 0,
            stderr: '',
        });
        redis = await startRedis({
            search: false,
            tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') },
        });
        plain = await startRedis({ search: false });
    });
    afterAll(async () => {
        await redis?.stop();
        await plain?.stop();
        if (dir) await rm(dir, { recursive: true, force: true });
    });

    test('an untrusted certificate is a clear TLS error with the way to trust a private CA', async () => {
        const error = await rejection(connectRedis(redis.url, { timeoutSeconds: 5 }));
        expect(error.message).toBe(
            `cannot connect to ${redis.url}: TLS failed: self-signed certificate (to trust a private CA: NODE_EXTRA_CA_CERTS=ca.pem)`,
        );
    });

    test('rediss:// to a port that does not serve TLS is a clear error, not a hang', async () => {
        const error = await rejection(connectRedis(`rediss://127.0.0.1:${plain.port}`, { timeoutSeconds: 1 }));
        expect(error.message).toMatch(
            new RegExp(
                `^cannot connect to rediss://127\\.0\\.0\\.1:${plain.port}: (TLS failed: .+|no TLS connection within 1 s \\(is the port serving TLS\\? .+\\))$`,
            ),
        );
    });
});

describe('a refusal no caller words', () => {
    test('names the command by its name and first key, never a script or the values written', () => {
        expect(describeCommand(['GET', 'kvmod:index:Q1'])).toBe('GET kvmod:index:Q1');
        expect(describeCommand(['HSET', 'row:1', 'name', 'secret value'])).toBe('HSET row:1');
        expect(
            describeCommand(['EVAL', 'return redis.call("GET", KEYS[1])\nlocal x', '1', 'kvmod:index:Q2', 'a']),
        ).toBe('EVAL <script> kvmod:index:Q2');
        expect(describeCommand(['FCALL', 'kvmod_write_Q1', '1', 'Q1:FL001', 'v1', 'v2'])).toBe(
            'FCALL kvmod_write_Q1 Q1:FL001',
        );
        expect(describeCommand(['EVALSHA', 'abc123', '0', 'arg'])).toBe('EVALSHA abc123');
        // One line: a key with a line break, a space or a quote is quoted as JSON.
        expect(describeCommand(['GET', 'user:ann\nsecond line'])).toBe('GET "user:ann\\nsecond line"');
        // At most 200 characters, cut between code points (a surrogate pair stays whole).
        const long = describeCommand(['GET', `${'k'.repeat(194)}😀😀😀`]);
        expect(Array.from(long)).toHaveLength(201);
        expect(long.endsWith('😀😀…')).toBe(true);
    });

    test('the command line and the editor word it alike: `<server> refused <command>: <reply>`', () => {
        const reply = new RedisErrorReply('WRONGTYPE Operation against a key holding the wrong kind of value');
        expect(refusalMessage(reply)).toBeUndefined(); // no command recorded: not this wording
        reply.server = 'redis://:***@127.0.0.1:6379';
        reply.command = 'GET kvmod:index:Q1';
        expect(refusalMessage(reply)).toBe(
            'redis://:***@127.0.0.1:6379 refused GET kvmod:index:Q1: WRONGTYPE Operation against a key holding the wrong kind of value',
        );
        expect(refusalMessage(new Error('WRONGTYPE'))).toBeUndefined();
    });
});
