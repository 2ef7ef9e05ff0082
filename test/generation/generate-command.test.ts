import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listTemplateFiles } from '../../src/generation/generation-templates.js';
import { main } from '../../src/cli/main.js';
import { runGenerate, type GenerateArgs, type GenerateReport } from '../../src/cli/generate-actions.js';
import { runTemplatesEject, runTemplatesList } from '../../src/cli/templates-actions.js';
import { memoryIo } from '../../src/cli/cli-io.js';
import { generationTargets, redisTarget, redisTargetOptions, validateViewModel } from '../../src/generation/index.js';
import { repoRoot } from './generation-fixtures.js';

let dir: string;
beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kvmod-cli-gen-'));
});
afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
});

const AIRFLIGHTS = join(repoRoot, 'test/fixtures/kvlm/airflights-q4q5.kvlm');
const EDGE = join(repoRoot, 'test/fixtures/kvlm/redis-edge.kvlm');

/** Runs the generate action in-process (not on a terminal: plain progress lines). */
function generate(
    args: Partial<GenerateArgs> & { inputs: string[] },
    io: ReturnType<typeof memoryIo>,
): Promise<number> {
    return runGenerate({ target: 'redis', out: 'generated', ...args }, io, false);
}

describe('kvmod generate', () => {
    test('generates each model into <out>/<database>/redis/<dialect>/, continues past a broken model, prints a summary and exits 1', async () => {
        const broken = join(dir, 'broken.kvlm');
        await writeFile(broken, 'database broken\ncollection {\n');
        const io = memoryIo();
        const code = await generate(
            { inputs: [AIRFLIGHTS, broken, EDGE], out: join(dir, 'out'), dialect: 'redisearch1' },
            io,
        );
        expect(code).toBe(1);
        expect((await readdir(join(dir, 'out', 'airflights', 'redis', 'redisearch1'))).sort()).toEqual([
            'README.md',
            'indexes.redis',
            'queries.redis',
            'writes.redis',
        ]);
        expect((await readdir(join(dir, 'out', 'edge', 'redis', 'redisearch1'))).sort()).toEqual([
            'README.md',
            'indexes.redis',
            'queries.redis',
            'writes.lua',
            'writes.redis',
        ]);
        expect(await readFile(join(dir, 'out', 'airflights', 'redis', 'redisearch1', 'indexes.redis'), 'utf8')).toMatch(
            /^FT\.CREATE Q3_passengersOfGivenFlight_92960a STOPWORDS 0 SCHEMA /,
        );
        // The model's diagnostics on standard output, its failed line on standard error, naming them once.
        expect(io.stdout).toMatch(new RegExp(`broken\\.kvlm:2:\\d+: error: `));
        expect(io.stderr).toMatch(/failed .*broken\.kvlm: \d+ errors? in the model \(listed above\)\n/);
        expect(io.stderr.trim().split('\n').at(-1)).toBe('3 models: 2 generated, 1 failed');
    });

    test('a .pidm model is transformed first, and its output equals the committed golden files of the example', async () => {
        for (const dialect of ['redisearch2', 'redisearch1']) {
            const io = memoryIo();
            const out = join(dir, dialect);
            expect(
                await generate({ inputs: [join(repoRoot, 'examples/airflights/airflights.pidm')], out, dialect }, io),
            ).toBe(0);
            const golden = join(repoRoot, 'examples/airflights/redis', dialect);
            const files = (await readdir(golden)).sort();
            expect((await readdir(join(out, 'airflights', 'redis', dialect))).sort()).toEqual(files);
            for (const file of files) {
                expect(await readFile(join(out, 'airflights', 'redis', dialect, file), 'utf8')).toBe(
                    await readFile(join(golden, file), 'utf8'),
                );
            }
        }
    });

    test('--db-prefix prefixes index names and keys with the database name', async () => {
        const io = memoryIo();
        expect(await main(['generate', AIRFLIGHTS, '-o', dir, '--db-prefix'], io)).toBe(0);
        const indexes = await readFile(join(dir, 'airflights', 'redis', 'redisearch2', 'indexes.redis'), 'utf8');
        expect(indexes.split('\n')[0]).toMatch(
            /^FT\.CREATE airflights_Q3_passengersOfGivenFlight_05b099 ON HASH PREFIX 1 airflights_Q3_passengersOfGivenFlight_05b099: /,
        );
    });

    test('--dump-view-model prints the schema-valid view model and writes nothing', async () => {
        const io = memoryIo();
        expect(
            await generate(
                { inputs: [AIRFLIGHTS], out: join(dir, 'out'), dumpViewModel: true, dialect: 'redisearch1' },
                io,
            ),
        ).toBe(0);
        const vm = JSON.parse(io.stdout) as { dialect: string };
        expect(vm.dialect).toBe('redisearch1');
        await expect(validateViewModel(redisTarget, vm)).resolves.toBeUndefined();
        expect(await readdir(dir)).toEqual([]);
    });

    test('--format json prints one report on standard output: per model its files, diagnostics or error; exit 1 when one failed', async () => {
        const broken = join(dir, 'broken.kvlm');
        await writeFile(broken, 'database broken\ncollection {\n');
        const out = join(dir, 'out');
        const io = memoryIo();
        expect(
            await main(['generate', AIRFLIGHTS, broken, '-o', out, '--format', 'json', '--threshold', '0.5'], io),
        ).toBe(1);
        expect(io.stderr).toBe('');
        const report = JSON.parse(io.stdout) as GenerateReport;
        expect(report.target).toBe('redis');
        expect(report.ok).toBe(false);
        expect(report.summary).toEqual({ models: 2, generated: 1, failed: 1 });
        expect(report.models[0]).toEqual({
            input: AIRFLIGHTS,
            model: 'airflights',
            status: 'generated',
            outputDir: join(out, 'airflights', 'redis', 'redisearch2'),
            files: ['indexes.redis', 'writes.redis', 'queries.redis', 'README.md'],
            // The fixture names a source model that is not beside it: a warning, which the report carries.
            diagnostics: [
                {
                    code: 'kvlm.source-missing',
                    path: AIRFLIGHTS,
                    line: 3,
                    column: 8,
                    endLine: 3,
                    endColumn: 25,
                    severity: 'warning',
                    message: `The source file 'airflights.pidm' does not exist (looked for ${join(repoRoot, 'test/fixtures/kvlm/airflights.pidm')}): the collections are not checked against a PIDM model, and load and verify need it.`,
                },
                // Without its PIDM the design cannot keep the entities: a design warning says so.
                {
                    code: 'redis.no-entity-store',
                    path: AIRFLIGHTS,
                    line: 1,
                    column: 1,
                    endLine: 1,
                    endColumn: 1,
                    severity: 'warning',
                    message:
                        'the design keeps no entities, so it has no entity operations (no entities.lua, no entity functions in the client): the design was read from a .kvlm file without its source PIDM model, so the entities (their attributes and references) are unknown',
                },
            ],
        });
        expect(report.models[1]).toMatchObject({ input: broken, status: 'failed', files: [] });
        expect(report.models[1].error).toMatch(/^\d+ errors? in the model/);
        expect(report.models[1].diagnostics[0]).toMatchObject({ path: broken, line: 2, severity: 'error' });
        // The notices a text run prints on standard error are the report's warnings.
        expect(report.warnings).toEqual([
            `--threshold applies to .pidm models only; ignored for ${AIRFLIGHTS}`,
            `--threshold applies to .pidm models only; ignored for ${broken}`,
        ]);
        expect((await readdir(join(out, 'airflights', 'redis', 'redisearch2'))).length).toBe(4);
    });

    test('--format json and --dump-view-model do not combine (a usage error, exit 2)', async () => {
        const io = memoryIo();
        expect(await main(['generate', AIRFLIGHTS, '-o', dir, '--format', 'json', '--dump-view-model'], io)).toBe(2);
        expect(io.stderr.split('\n')[0]).toBe(
            'kvmod: --dump-view-model prints JSON already: give it without --format json',
        );
    });

    test('--templates overrides a template and a partial, one line says so, the output changes', async () => {
        const templates = join(dir, 'tpl');
        await mkdir(join(templates, 'partials'), { recursive: true });
        await writeFile(
            join(templates, 'indexes.redis.hbs'),
            '{{#each collections}}\n{{> command create}}\n{{/each}}\nPING\n',
        );
        await writeFile(join(templates, 'partials', 'command.hbs'), '{{redisCommand this}} \n');
        const io = memoryIo();
        expect(await generate({ inputs: [AIRFLIGHTS], out: join(dir, 'out'), templates }, io)).toBe(0);
        const indexes = await readFile(join(dir, 'out', 'airflights', 'redis', 'redisearch2', 'indexes.redis'), 'utf8');
        expect(indexes.endsWith(' \nPING\n')).toBe(true);
        expect(io.stderr.split('\n').filter((line) => line.includes('override'))).toEqual([
            `kvmod: templates from ${templates}: 2 override built-ins (indexes.redis.hbs, partials/command.hbs)`,
        ]);
    });

    test('a broken user template fails the model with the template file and line', async () => {
        const templates = join(dir, 'tpl');
        await mkdir(templates);
        await writeFile(join(templates, 'queries.redis.hbs'), '{{#each collections}}\n  {{nosuchField}}\n{{/each}}\n');
        const io = memoryIo();
        expect(await generate({ inputs: [AIRFLIGHTS], out: join(dir, 'out'), templates }, io)).toBe(1);
        expect(io.stderr).toContain(`${join(templates, 'queries.redis.hbs')}:2:5: 'nosuchField' is not defined here`);
    });

    test('both dialects generated into one output root sit side by side, neither overwrites the other', async () => {
        for (const dialect of ['redisearch2', 'redisearch1'])
            expect(await main(['generate', AIRFLIGHTS, '-o', dir, '--dialect', dialect], memoryIo())).toBe(0);
        expect((await readdir(join(dir, 'airflights', 'redis'))).sort()).toEqual(['redisearch1', 'redisearch2']);
        expect(await readFile(join(dir, 'airflights', 'redis', 'redisearch1', 'README.md'), 'utf8')).toContain('1.2');
    });

    test('an unknown target option value is a usage error naming the valid values (exit 2)', async () => {
        const io = memoryIo();
        expect(await main(['generate', AIRFLIGHTS, '-o', dir, '--dialect', 'redisearch9'], io)).toBe(2);
        expect(io.stderr).toMatch(
            /Invalid values:\n\s+Argument: dialect, Given: "redisearch9", Choices: "redisearch2", "redisearch1"/,
        );
        const limit = memoryIo();
        expect(await main(['generate', AIRFLIGHTS, '-o', dir, '--limit', '0'], limit)).toBe(2);
        expect(limit.stderr).toContain(
            "kvmod: invalid value '0' for --limit of target redis (valid: a whole number from 1 to 1000000)",
        );
        const target = memoryIo();
        expect(await main(['generate', AIRFLIGHTS, '-o', dir, '--target', 'nosuch'], target)).toBe(2);
        expect(target.stderr).toMatch(/Argument: target, Given: "nosuch", Choices: "redis"/);
        expect(await readdir(dir)).toEqual([]);
    });
});

describe('kvmod templates', () => {
    test('list shows each target with its engine, declared options, output folder and templates', async () => {
        const io = memoryIo();
        expect(await runTemplatesList({}, io)).toBe(0);
        const redis = io.stdout.slice(io.stdout.indexOf('redis: '));
        expect(redis.split('\n').slice(0, 7)).toEqual([
            'redis: RediSearch indexes, writes and queries as redis-cli scripts, and a README of the design',
            '  engine: redisearch',
            '  options:',
            `    --dialect redisearch2|redisearch1 (default redisearch2): ${redisTargetOptions.dialect.description}`,
            '    --db-prefix boolean (default false): Prefix index names and keys with the database name (<db>_<collection>)',
            "    --limit integer 1..1000000 (default 10000): The page size: the default count of every query's LIMIT $offset $count",
            '  output: <out>/<database>/redis/<dialect>/',
        ]);
        expect(io.stdout).toContain('    queries.redis.hbs  (entry, templates/redis/queries.redis.hbs)');
        expect(io.stdout).toContain('    partials/command.hbs  (partial, templates/redis/partials/command.hbs)');
    });

    test('eject copies the built-ins into a folder that generate --templates then accepts unchanged', async () => {
        const io = memoryIo();
        expect(await runTemplatesEject({ target: 'redis', dir: join(dir, 'mine') }, io)).toBe(0);
        expect(io.stdout).toContain(`${join(dir, 'mine')}/partials/command.hbs`);
        expect(await main(['generate', AIRFLIGHTS, '-o', join(dir, 'a')], memoryIo())).toBe(0);
        expect(await main(['templates', 'eject', 'redis', join(dir, 'mine2')], memoryIo())).toBe(0);
        expect(
            await main(['generate', AIRFLIGHTS, '-o', join(dir, 'b'), '--templates', join(dir, 'mine2')], memoryIo()),
        ).toBe(0);
        for (const file of ['indexes.redis', 'queries.redis', 'writes.redis', 'README.md']) {
            expect(await readFile(join(dir, 'b', 'airflights', 'redis', 'redisearch2', file), 'utf8')).toBe(
                await readFile(join(dir, 'a', 'airflights', 'redis', 'redisearch2', file), 'utf8'),
            );
        }
    });

    test('eject copies only the templates it is given, and generate then says in one line what they override', async () => {
        const mine = join(dir, 'some');
        const io = memoryIo();
        expect(await main(['templates', 'eject', 'redis', mine, 'queries.redis', 'partials/command.hbs'], io)).toBe(0);
        expect(io.stdout).toBe(`${mine}/partials/command.hbs\n${mine}/queries.redis.hbs\n`);
        expect(await listTemplateFiles(mine)).toEqual(['partials/command.hbs', 'queries.redis.hbs']);
        const generated = memoryIo();
        expect(await main(['generate', AIRFLIGHTS, '-o', join(dir, 'c'), '--templates', mine], generated)).toBe(0);
        expect(generated.stderr.split('\n').filter((line) => line.includes('template'))).toEqual([
            `kvmod: templates from ${mine}: 2 override built-ins (partials/command.hbs, queries.redis.hbs)`,
        ]);
        const unknown = memoryIo();
        expect(await main(['templates', 'eject', 'redis', mine, 'query.redis'], unknown)).toBe(1);
        expect(unknown.stderr).toBe(
            "kvmod: no built-in redis template named 'query.redis.hbs' (the templates: README.md.hbs, entities.lua.hbs, indexes.redis.hbs, partials/command.hbs, partials/field-table.hbs, partials/query-section.hbs, queries.redis.hbs, writes.lua.hbs, writes.redis.hbs)\n",
        );
    });

    test('eject of an unknown target is a user error', async () => {
        const io = memoryIo();
        expect(await main(['templates', 'eject', 'mongo', dir], io)).toBe(1);
        expect(io.stderr).toContain(
            `kvmod: unknown target 'mongo' (known: ${[...generationTargets.keys()].join(', ')})`,
        );
    });
});
