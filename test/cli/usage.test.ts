/**
 * Bad usage through the real command line: every complaint about the arguments (unknown option, missing
 * argument, invalid choice, a value the option's check rejects, unknown command) and every bad option value
 * found later (a threshold out of range) exits 2 with three short lines — the message, the misused command's
 * synopsis, and where its help is — never the whole help, never an internal error.
 */
import { describe, expect, it } from '@jest/globals';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import { runKvmod, STACK_TRACE } from './run-kvmod.js';

const MODEL = 'examples/airflights/airflights.pidm';

/** Runs the real command and checks the shape every usage error has; returns its stderr. */
function usageError(args: string[], usage: RegExp, message: string): string {
    const run = runKvmod(args);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).not.toMatch(STACK_TRACE);
    expect(run.stderr).not.toContain('internal error');
    const head = `kvmod: ${message}\nusage: `;
    expect(run.stderr.slice(0, head.length)).toBe(head);
    const rest = run.stderr.slice(head.length);
    expect(rest).toMatch(usage);
    const synopsis = rest.split('\n')[0];
    const command = /^kvmod(?: [a-z][\w-]*)*/.exec(synopsis)![0];
    expect(rest).toBe(`${synopsis}\nRun '${command} --help' for usage.\n`);
    return run.stderr;
}

describe('usage errors exit 2 with the usage and one message', () => {
    it('an unknown option', () => {
        usageError(['transform', MODEL, '--colour'], /^kvmod transform <models\.\.>\n/, 'Unknown argument: colour');
    });

    it('the renamed --key-strategy is an unknown option, named once', () => {
        usageError(
            ['load', MODEL, '--data', 'd.json', '--redis', 'redis://127.0.0.1:1', '--key-strategy', 'counter'],
            /^kvmod load <model>\n/,
            'Unknown argument: key-strategy',
        );
    });

    it('a missing positional argument', () => {
        usageError(
            ['generate'],
            /^kvmod generate <inputs\.\.>\n/,
            'Not enough non-option arguments: got 0, need at least 1',
        );
    });

    it('missing required options', () => {
        usageError(['load', MODEL], /^kvmod load <model>\n/, 'Missing required arguments: data, redis');
        usageError(['verify', MODEL], /^kvmod verify <model>\n/, 'Missing required argument: redis');
        usageError(
            ['verify', MODEL, '--redis', 'redis://127.0.0.1:1'],
            /^kvmod verify <model>\n/,
            'Missing required argument: data (or --live to check the server as it is)',
        );
        usageError(
            ['verify', MODEL, '--live', '--data', 'd.json', '--redis', 'redis://127.0.0.1:1'],
            /^kvmod verify <model>\n/,
            '--live reads the entities from the server: give no --data',
        );
    });

    it('a threshold outside (0, 1], rejected by the shared option check of every command that transforms', () => {
        usageError(
            ['transform', MODEL, '--threshold', '1.5'],
            /^kvmod transform/,
            'the threshold must be a number in (0, 1], got 1.5',
        );
        usageError(
            ['generate', MODEL, '--threshold', '0'],
            /^kvmod generate/,
            'the threshold must be a number in (0, 1], got 0',
        );
        usageError(
            ['load', MODEL, '--data', 'd.json', '--redis', 'redis://127.0.0.1:1', '--threshold', '-1'],
            /^kvmod load/,
            'the threshold must be a number in (0, 1], got -1',
        );
        usageError(
            ['verify', MODEL, '--data', 'd.json', '--redis', 'redis://127.0.0.1:1', '--threshold', 'most'],
            /^kvmod verify/,
            'the threshold must be a number in (0, 1], got NaN',
        );
    });

    it('--threshold without a value', () => {
        usageError(
            ['transform', MODEL, '--threshold'],
            /^kvmod transform/,
            'Not enough arguments following: threshold',
        );
    });

    it('an invalid choice of --merge or --key', () => {
        usageError(
            ['transform', MODEL, '--merge', 'foo'],
            /^kvmod transform/,
            'Invalid values:\n  Argument: merge, Given: "foo", Choices: "safe", "paper", "none", "cost"',
        );
        usageError(
            ['generate', MODEL, '--key', 'uuid'],
            /^kvmod generate/,
            'Invalid values:\n  Argument: key, Given: "uuid", Choices: "natural", "counter"',
        );
    });

    it('an unknown command, with the nearest command as a suggestion', () => {
        usageError(
            ['transfrom', MODEL],
            /^kvmod <command> \[options\]\n/,
            "Unknown command 'transfrom'. Did you mean transform?",
        );
    });

    it("a target option's value outside its declaration, named with the valid values", () => {
        usageError(
            ['generate', MODEL, '--dialect', 'redisearch3', '-o', 'never-written'],
            /^kvmod generate <inputs\.\.>\n/,
            'Invalid values:\n  Argument: dialect, Given: "redisearch3", Choices: "redisearch2", "redisearch1"',
        );
        usageError(
            ['load', MODEL, '--data', 'd.json', '--redis', 'redis://127.0.0.1:1', '--limit', '0'],
            /^kvmod load <model>\n/,
            "invalid value '0' for --limit of target redis (valid: a whole number from 1 to 1000000)",
        );
    });

    it("an option value its action finds bad, with the command's usage like yargs' own complaints", () => {
        usageError(
            ['plan', MODEL, MODEL, '--target', 'redis-core'],
            /^kvmod plan <old> \[new\]\n/,
            'plan and migrate work with the redis target, not redis-core',
        );
        usageError(
            ['migrate', MODEL, MODEL, '--data', 'd.json', '--redis', 'redis://127.0.0.1:1', '--target', 'redis-core'],
            /^kvmod migrate <old> \[new\]\n/,
            'plan and migrate work with the redis target, not redis-core',
        );
    });

    it('a numeric option given something else than the number it takes: not a number, negative, fractional, 0', () => {
        // yargs reads `abc` as NaN and takes -3 and 1.5: verify ran `NaN parameter sets` and exited 0.
        const server = ['--data', 'd.json', '--redis', 'redis://127.0.0.1:1'];
        const cases: [string[], RegExp, string][] = [
            [
                ['verify', MODEL, ...server, '--samples', 'abc'],
                /^kvmod verify <model>\n/,
                '--samples must be a whole number from 1, got NaN',
            ],
            [
                ['verify', MODEL, ...server, '--samples', '-3'],
                /^kvmod verify <model>\n/,
                '--samples must be a whole number from 1, got -3',
            ],
            [
                ['verify', MODEL, ...server, '--samples', '1.5'],
                /^kvmod verify <model>\n/,
                '--samples must be a whole number from 1, got 1.5',
            ],
            [
                ['verify', MODEL, ...server, '--seed', '0.5'],
                /^kvmod verify <model>\n/,
                '--seed must be a whole number, got 0.5',
            ],
            [
                ['data', 'generate', MODEL, '--scale', '0'],
                /^kvmod data generate <model>\n/,
                '--scale must be a whole number from 1, got 0',
            ],
            [
                ['data', 'generate', MODEL, '--scale', 'many'],
                /^kvmod data generate <model>\n/,
                '--scale must be a whole number from 1, got NaN',
            ],
            [
                ['data', 'generate', MODEL, '--seed', '2.5'],
                /^kvmod data generate <model>\n/,
                '--seed must be a whole number, got 2.5',
            ],
            [
                ['conformance', '--redis', 'redis://127.0.0.1:1', '--samples', '0'],
                /^kvmod conformance\n/,
                '--samples must be a whole number from 1, got 0',
            ],
            [
                ['conformance', '--redis', 'redis://127.0.0.1:1', '--seeds', '1', 'x'],
                /^kvmod conformance\n/,
                '--seeds must be a whole number, got NaN',
            ],
            [
                ['conformance', '--redis', 'redis://127.0.0.1:1', '--scale', '-1'],
                /^kvmod conformance\n/,
                '--scale must be a whole number from 1, got -1',
            ],
            [
                ['conformance', '--redis', 'redis://127.0.0.1:1', '--timeout', '0'],
                /^kvmod conformance\n/,
                '--timeout must be a positive number of seconds, got 0',
            ],
        ];
        for (const [args, usage, message] of cases) usageError(args, usage, message);
    });

    it('no command at all', () => {
        usageError([], /^kvmod <command> \[options\]\n/, 'Name a command.');
    });

    it('a bad value writes nothing and loads no model', async () => {
        const io = memoryIo();
        expect(await main(['transform', 'test/cli/fixtures/no-such-model.pidm', '--threshold', '2'], io)).toBe(2);
        expect(io.stdout).toBe('');
        expect(io.stderr).toMatch(/^kvmod: the threshold must be a number in \(0, 1\], got 2\n/);
        expect(io.stderr).not.toContain('no-such-model');
    });
});

describe('main writes everything through the io it is given', () => {
    it('help and version go to io.out, exit 0', async () => {
        const help = memoryIo();
        expect(await main(['--help'], help)).toBe(0);
        expect(help.stdout).toMatch(/^kvmod <command> \[options\]\n/);
        expect(help.stdout).toMatch(/^ {2}kvmod transform <models\.\.>/m);
        expect(help.stderr).toBe('');
        const version = memoryIo();
        expect(await main(['--version'], version)).toBe(0);
        expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    });

    it("a command's results and messages go to the given io, and failures are printed there too", async () => {
        const io = memoryIo();
        expect(await main(['validate', 'test/cli/fixtures/clean.pidm'], io)).toBe(0);
        expect(io.stderr).toBe('1 file checked: 0 errors, 0 warnings\n');
        const failing = memoryIo();
        expect(await main(['validate', 'test/cli/fixtures/nowhere/*.pidm'], failing)).toBe(1);
        expect(failing.stderr).toBe("kvmod: no files match 'test/cli/fixtures/nowhere/*.pidm'\n");
    });

    it('runs keep their exit codes apart', async () => {
        const [bad, good] = await Promise.all([
            main(['validate', 'test/cli/fixtures/unknown-attributes.pidm'], memoryIo()),
            main(['validate', 'test/cli/fixtures/clean.pidm'], memoryIo()),
        ]);
        expect([bad, good]).toEqual([1, 0]);
    });
});
