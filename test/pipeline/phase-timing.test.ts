import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { generateModels } from '../../src/pipeline/generate.js';
import { phaseDone } from '../../src/pipeline/phase-timing.js';
import { transformFiles } from '../../src/pipeline/transform.js';

describe('phase timing (KVMOD_TIMING)', () => {
    const saved = process.env.KVMOD_TIMING;
    afterEach(() => {
        if (saved === undefined) delete process.env.KVMOD_TIMING;
        else process.env.KVMOD_TIMING = saved;
        jest.restoreAllMocks();
    });

    const captured = () => {
        const lines: string[] = [];
        jest.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
            lines.push(String(chunk));
            return true;
        });
        return lines;
    };

    test('without the variable a phase boundary writes nothing', () => {
        delete process.env.KVMOD_TIMING;
        const lines = captured();
        phaseDone('load');
        process.env.KVMOD_TIMING = '0';
        phaseDone('load');
        expect(lines).toEqual([]);
    });

    test('with it each boundary writes its CPU and wall time and the memory in use', () => {
        process.env.KVMOD_TIMING = '1';
        const lines = captured();
        phaseDone('first');
        phaseDone('second');
        expect(lines).toHaveLength(2);
        for (const [index, name] of ['first', 'second'].entries()) {
            expect(lines[index]).toMatch(
                new RegExp(
                    `^kvmod: timing: ${name} +\\d+\\.\\d\\d s cpu +\\d+\\.\\d\\d s wall  heap \\d+ MB, rss \\d+ MB\\n$`,
                ),
            );
        }
    });

    test('a transformation reports its phases in order; the source is freed before the KVLM check', async () => {
        process.env.KVMOD_TIMING = '1';
        const lines = captured();
        await transformFiles(['examples/airflights/airflights.pidm'], { print: false });
        const phases = lines.flatMap((line) => /^kvmod: timing: (.+?) {2,}/.exec(line)?.[1] ?? []);
        expect(phases).toEqual(['load', 'release syntax', 'transform', 'release source', 'check KVLM']);
    });

    test('a generation names the schema check only when user templates may render the view model', async () => {
        process.env.KVMOD_TIMING = '1';
        const dir = mkdtempSync(join(tmpdir(), 'kvmod-phases-'));
        try {
            const phasesOf = async (templatesDir?: string): Promise<string[]> => {
                const lines = captured();
                const results = await generateModels(['examples/airflights/airflights.pidm'], {
                    target: 'redis',
                    outDir: join(dir, templatesDir ? 'with' : 'without'),
                    ...(templatesDir ? { templatesDir } : {}),
                });
                jest.restoreAllMocks();
                expect(results.map((r) => r.error)).toEqual([undefined]);
                return lines.flatMap((line) => /^kvmod: timing: (.+?) {2,}/.exec(line)?.[1] ?? []).slice(5);
            };
            expect(await phasesOf()).toEqual(['view model', 'render and write']);
            mkdirSync(join(dir, 'templates')); // an empty folder: the built-in templates, the schema checked
            expect(await phasesOf(join(dir, 'templates'))).toEqual(['view model + schema', 'render and write']);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
