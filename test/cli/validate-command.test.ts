/**
 * `kvmod validate` through the real command line: exit codes, the exact output formats, workspaces split
 * across files, globs, usage errors.
 */
import { describe, expect, it } from '@jest/globals';
import { DIAGNOSTIC_LINE, runKvmod, STACK_TRACE } from './run-kvmod.js';

const FIXTURES = 'test/cli/fixtures';

describe('kvmod validate', () => {
    it('exits 0 and prints only the summary for a model without diagnostics', () => {
        const run = runKvmod(['validate', `${FIXTURES}/clean.pidm`]);
        expect(run.status).toBe(0);
        expect(run.stdout).toBe('');
        expect(run.stderr).toBe('1 file checked: 0 errors, 0 warnings\n');
    });

    it('prints one error per unknown name with its line, column, did-you-mean hint and code, and exits 1', () => {
        const run = runKvmod(['validate', `${FIXTURES}/unknown-attributes.pidm`]);
        expect(run.status).toBe(1);
        const lines = run.stdout.trimEnd().split('\n');
        expect(lines).toHaveLength(2);
        expect(lines[0]).toMatch(
            /^test\/cli\/fixtures\/unknown-attributes\.pidm:9:14: error: .*'citty'.*[Dd]id you mean 'city'\? \[pidm\.unknown-name\]$/,
        );
        expect(lines[1]).toMatch(
            /^test\/cli\/fixtures\/unknown-attributes\.pidm:11:7: error: .*'contry'.*[Dd]id you mean 'country'\? \[pidm\.unknown-name\]$/,
        );
        expect(run.stderr).toBe('1 file checked: 2 errors, 0 warnings\n');
    });

    it('prints the diagnostics as a JSON array on stdout with --format json, and nothing on stderr', () => {
        const run = runKvmod(['validate', `${FIXTURES}/unknown-attributes.pidm`, '--format', 'json']);
        expect(run.status).toBe(1);
        expect(run.stderr).toBe('');
        const diagnostics = JSON.parse(run.stdout) as Record<string, unknown>[];
        expect(diagnostics).toHaveLength(2);
        expect(diagnostics[0]).toEqual({
            path: `${FIXTURES}/unknown-attributes.pidm`,
            line: 9,
            column: 14,
            endLine: 9,
            endColumn: 19,
            severity: 'error',
            message: expect.stringContaining("'citty'"),
            code: 'pidm.unknown-name',
        });
    });

    it('prints an empty JSON array for a clean model', () => {
        const run = runKvmod(['validate', '--format=json', `${FIXTURES}/clean.pidm`]);
        expect(run.status).toBe(0);
        expect(JSON.parse(run.stdout)).toEqual([]);
    });

    it('loads all files as one workspace, so queries link to entities declared in another file', () => {
        const both = runKvmod([
            'validate',
            `${FIXTURES}/workspace/entities.pidm`,
            `${FIXTURES}/workspace/queries.pidm`,
        ]);
        expect(both.status).toBe(0);
        expect(both.stderr).toBe('2 files checked: 0 errors, 0 warnings\n');

        const queriesAlone = runKvmod(['validate', `${FIXTURES}/workspace/queries.pidm`]);
        expect(queriesAlone.status).toBe(1);
        expect(queriesAlone.stdout).toMatch(
            /^test\/cli\/fixtures\/workspace\/queries\.pidm:4:6: error: .*'Author'.* \[pidm\.unknown-name\]$/m,
        );
    });

    it('expands a quoted glob itself', () => {
        const run = runKvmod(['validate', `${FIXTURES}/workspace/*.pidm`]);
        expect(run.status).toBe(0);
        expect(run.stderr).toBe('2 files checked: 0 errors, 0 warnings\n');
    });

    it('takes a directory for the .pidm and .kvlm files under it', () => {
        const run = runKvmod(['validate', `${FIXTURES}/workspace/`]);
        expect(run.status).toBe(0);
        expect(run.stderr).toBe('2 files checked: 0 errors, 0 warnings\n');
    });

    it('fails with exit 1 when a directory holds no model', () => {
        const run = runKvmod(['validate', 'bin']);
        expect(run.status).toBe(1);
        expect(run.stderr).toBe("kvmod: no .pidm or .kvlm files in 'bin'\n");
    });

    it('fails with exit 1 when a glob matches nothing', () => {
        const run = runKvmod(['validate', `${FIXTURES}/nowhere/*.pidm`]);
        expect(run.status).toBe(1);
        expect(run.stdout).toBe('');
        expect(run.stderr).toBe(`kvmod: no files match '${FIXTURES}/nowhere/*.pidm'\n`);
    });

    it('reports a missing file and an unsupported file type as errors at 1:1, exit 1', () => {
        const run = runKvmod(['validate', `${FIXTURES}/missing.pidm`, 'package.json']);
        expect(run.status).toBe(1);
        expect(run.stdout).toBe(
            "package.json:1:1: error: unsupported file type '.json': kvmod reads .pidm and .kvlm files [io.unsupported-file-type]\n" +
                `${FIXTURES}/missing.pidm:1:1: error: cannot read file: no such file [io.unreadable]\n`,
        );
        expect(run.stderr).toBe('2 files checked: 2 errors, 0 warnings\n');
    });

    it('validates KVLM files too', () => {
        const run = runKvmod(['validate', 'test/fixtures/kvlm/airflights-q4q5.kvlm']);
        expect(run.stderr).toMatch(/^1 file checked: 0 errors, \d+ warnings?\n$/);
        expect(run.status).toBe(0);
    });

    it('reports nesting too deep for the parser as a syntax.too-deep error, without a stack trace', () => {
        const run = runKvmod(['validate', `${FIXTURES}/deep-nesting.pidm`]);
        expect(run.status).toBe(1);
        expect(run.stdout).toMatch(
            /^test\/cli\/fixtures\/deep-nesting\.pidm:\d+:\d+: error: Nesting is deeper than 100 levels.* \[syntax\.too-deep\]$/m,
        );
        expect(`${run.stdout}${run.stderr}`).not.toMatch(STACK_TRACE);
    });

    it('prints every diagnostic in the one-line format', () => {
        const run = runKvmod(['validate', 'examples/airflights/airflights.pidm']);
        expect(run.status).toBe(0);
        for (const line of run.stdout.trimEnd().split('\n').filter(Boolean)) expect(line).toMatch(DIAGNOSTIC_LINE);
    });
});

describe('kvmod usage', () => {
    it('prints the usage listing the validate command with --help, exit 0', () => {
        const run = runKvmod(['--help']);
        expect(run.status).toBe(0);
        expect(run.stdout).toMatch(/^kvmod <command> \[options\]/);
        expect(run.stdout).toMatch(/^ {2}kvmod validate <files\.\.>/m);
        expect(run.stderr).toBe('');
    });

    it('prints the version of package.json with --version, exit 0', async () => {
        const { default: pkg } = await import('../../package.json', { with: { type: 'json' } });
        const run = runKvmod(['--version']);
        expect(run.status).toBe(0);
        expect(run.stdout).toBe(`${pkg.version}\n`);
    });

    it('exits 2 with the message and the synopsis for an unknown option', () => {
        const run = runKvmod(['validate', `${FIXTURES}/clean.pidm`, '--colour']);
        expect(run.status).toBe(2);
        expect(run.stdout).toBe('');
        expect(run.stderr).toBe(
            "kvmod: Unknown argument: colour\nusage: kvmod validate <files..>\nRun 'kvmod validate --help' for usage.\n",
        );
    });

    it('exits 2 when validate has no file argument', () => {
        const run = runKvmod(['validate']);
        expect(run.status).toBe(2);
        expect(run.stderr).toMatch(/kvmod: Not enough non-option arguments: got 0, need at least 1\n/);
    });

    it('exits 2 for an unknown format', () => {
        const run = runKvmod(['validate', `${FIXTURES}/clean.pidm`, '--format', 'xml']);
        expect(run.status).toBe(2);
        expect(run.stderr).toMatch(/Invalid values:\s+Argument: format, Given: "xml", Choices: "text", "json"/);
    });

    it('exits 2 without a command, and suggests the nearest command for a misspelled one', () => {
        expect(runKvmod([]).status).toBe(2);
        const run = runKvmod(['valdate', `${FIXTURES}/clean.pidm`]);
        expect(run.status).toBe(2);
        expect(run.stderr).toMatch(/kvmod: Unknown command 'valdate'\. Did you mean validate\?\n/);
    });
});
