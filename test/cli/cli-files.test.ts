/**
 * File arguments: literal paths pass through untouched, globs and directories expand in sorted order,
 * duplicates are dropped, and a pattern that yields nothing is a KvmodError.
 */
import { describe, expect, it } from '@jest/globals';
import { expandFileArguments } from '../../src/cli/cli-files.js';
import { REPO_ROOT } from './run-kvmod.js';

describe('expandFileArguments', () => {
    it('passes a literal path through even when the file does not exist (the loader reports it)', async () => {
        expect(await expandFileArguments(['no/such/file.pidm'], REPO_ROOT)).toEqual(['no/such/file.pidm']);
    });

    it('expands a glob relative to the working directory, sorted, and keeps argument order across arguments', async () => {
        expect(
            await expandFileArguments(
                ['test/cli/fixtures/workspace/q*.pidm', 'test/cli/fixtures/workspace/*.pidm'],
                REPO_ROOT,
            ),
        ).toEqual(['test/cli/fixtures/workspace/queries.pidm', 'test/cli/fixtures/workspace/entities.pidm']);
    });

    it('keeps an absolute glob absolute', async () => {
        expect(await expandFileArguments([`${REPO_ROOT}test/cli/fixtures/workspace/*.pidm`], REPO_ROOT)).toEqual([
            `${REPO_ROOT}test/cli/fixtures/workspace/entities.pidm`,
            `${REPO_ROOT}test/cli/fixtures/workspace/queries.pidm`,
        ]);
    });

    it('takes a directory for the .pidm and .kvlm files under it', async () => {
        expect(await expandFileArguments(['test/cli/fixtures/workspace/'], REPO_ROOT)).toEqual([
            'test/cli/fixtures/workspace/entities.pidm',
            'test/cli/fixtures/workspace/queries.pidm',
        ]);
    });

    it('rejects a glob that matches nothing with a KvmodError naming it', async () => {
        await expect(expandFileArguments(['nowhere/*.pidm'], REPO_ROOT)).rejects.toMatchObject({
            name: 'KvmodError',
            code: 'cli.no-match',
            message: "no files match 'nowhere/*.pidm'",
        });
    });
});
