/**
 * `kvmod complete` through the engine contract: a design whose engine leaves nothing pending says so without
 * connecting (the cluster path, which carries pending changes, is tested in redis-core-cluster-entities.test.ts).
 */
import { describe, expect, test } from '@jest/globals';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';

describe('kvmod complete', () => {
    test('a design whose operations are one atomic call: nothing pending, said without connecting', async () => {
        const io = memoryIo();
        // Port 1: nothing listens there; a connection attempt would fail the command.
        expect(
            await main(['complete', 'examples/book-ratings/book-ratings.pidm', '--redis', 'redis://127.0.0.1:1'], io),
        ).toBe(0);
        expect(io.stdout).toBe(
            'the redis design leaves nothing pending: each of its entity operations is one atomic call, or is completed by the next operation and by kvmod load\n',
        );
        expect(io.stderr).toBe('');
    });
});
