import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { mkdtemp, mkdir, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
    ejectTemplates,
    GenerationError,
    generateTarget,
    generationTargets,
    listTemplateFiles,
    redisTarget,
    renderTemplates,
    validateViewModel,
    writeOutputs,
    builtInTemplateDir,
} from '../../src/generation/index.js';
import type { GeneratedFile } from '../../src/generation/generation-target.js';
import { renderTemplate, streamTarget, type DesignSource } from '../../src/generation/generation-engine.js';
import { generateModels } from '../../src/pipeline/generate.js';
import { loadKvlmFile } from './generation-fixtures.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { VIEW_MODEL_VALIDATORS } from '../../src/generation/generated/view-model-validators.js';

let dir: string;
beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kvmod-gen-'));
});
afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
});

const fixture = () => loadKvlmFile('test/fixtures/kvlm/airflights-q4q5.kvlm');

async function userTemplate(name: string, text: string): Promise<void> {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text);
}

async function failure(promise: Promise<unknown>): Promise<GenerationError> {
    try {
        await promise;
    } catch (error) {
        expect(error).toBeInstanceOf(GenerationError);
        return error as GenerationError;
    }
    throw new Error('expected a GenerationError');
}

describe('layered templates', () => {
    test('a user template and a user partial replace the built-ins of the same relative name, and each override is logged', async () => {
        await userTemplate(
            'queries.redis.hbs',
            '{{#each collections}}{{#each queries}}# {{name}}\n{{> command command}}{{/each}}{{/each}}',
        );
        await userTemplate('partials/command.hbs', 'CMD {{redisCommand this}}\n');
        const log: string[] = [];
        const { files } = await generateTarget(redisTarget, await fixture(), {
            templatesDir: dir,
            log: (m) => log.push(m),
        });
        const queries = files.find((f) => f.path === 'queries.redis')!.content;
        expect(queries.split('\n')[0]).toBe('# Q3_passengersOfGivenFlight');
        expect(queries.split('\n')[1]).toMatch(/^CMD FT\.SEARCH Q3_passengersOfGivenFlight /);
        const indexes = files.find((f) => f.path === 'indexes.redis')!.content;
        expect(indexes.startsWith('CMD FT.CREATE ')).toBe(true); // the built-in entry uses the user's partial
        expect(log).toEqual([`templates from ${dir}: 2 override built-ins (partials/command.hbs, queries.redis.hbs)`]);
    });

    test('a user template with no built-in counterpart becomes an extra output file', async () => {
        await userTemplate('drop.redis.hbs', '{{#each collections}}{{cliLine "FT.DROPINDEX" index}}\n{{/each}}');
        const log: string[] = [];
        const { files } = await generateTarget(redisTarget, await fixture(), {
            templatesDir: dir,
            log: (m) => log.push(m),
        });
        expect(files.find((f) => f.path === 'drop.redis')!.content).toBe(
            'FT.DROPINDEX Q3_passengersOfGivenFlight\nFT.DROPINDEX Q4_passengersDepartingGivenCountry_Q5_passengersDepartingGivenPeriod\n',
        );
        expect(log).toEqual([
            `templates from ${dir}: 1 added, with no built-in redis template of that name (drop.redis.hbs)`,
        ]);
    });

    test('a block closed by the wrong name is a syntax error at the block it opens, with file and line', async () => {
        await userTemplate('indexes.redis.hbs', 'first line\n{{#each collections}}\n{{/if}}\n');
        const error = await failure(generateTarget(redisTarget, await fixture(), { templatesDir: dir }));
        expect(error.code).toBe('template.parse');
        expect(error.where?.startsWith(`${join(dir, 'indexes.redis.hbs')}:2:`)).toBe(true);
        expect(error.message).toContain("each doesn't match if");
    });

    test('an unclosed mustache is a parse error with the file and line', async () => {
        await userTemplate('partials/command.hbs', 'ok\n\n{{redisCommand this}\n');
        const error = await failure(generateTarget(redisTarget, await fixture(), { templatesDir: dir }));
        expect(error.code).toBe('template.parse');
        expect(error.message).toContain(`${join(dir, 'partials/command.hbs')}:3`);
    });

    test('a field the view model does not have is a strict-mode error naming the partial file, line and column', async () => {
        await userTemplate('partials/command.hbs', '{{redisCommand this}}\n{{ indexName }}\n');
        const error = await failure(generateTarget(redisTarget, await fixture(), { templatesDir: dir }));
        expect(error.code).toBe('template.runtime');
        expect(error.where).toBe(`${join(dir, 'partials/command.hbs')}:2:4`);
        expect(error.message).toMatch(/'indexName' is not defined/);
    });

    test('a missing partial is reported on the line that calls it', async () => {
        await userTemplate('writes.redis.hbs', '{{#each collections}}\n{{> nosuch}}\n{{/each}}\n');
        const error = await failure(generateTarget(redisTarget, await fixture(), { templatesDir: dir }));
        expect(error.where).toBe(`${join(dir, 'writes.redis.hbs')}:2`);
        expect(error.message).toMatch(/no partial named 'nosuch'/);
    });

    test('a helper misused in a template is reported with the file and line of the call', async () => {
        await userTemplate('writes.redis.hbs', '\n{{redisCommand database}}\n');
        const error = await failure(generateTarget(redisTarget, await fixture(), { templatesDir: dir }));
        expect(error.where).toBe(`${join(dir, 'writes.redis.hbs')}:2:1`);
        expect(error.message).toMatch(/redisCommand expects a command/);
    });

    test('a template that is a symbolic link, or inside a linked folder, overrides the built-in as a file would', async () => {
        const shared = await mkdtemp(join(tmpdir(), 'kvmod-shared-'));
        try {
            await writeFile(
                join(shared, 'queries.hbs'),
                '{{#each collections}}{{#each queries}}# {{name}}\n{{/each}}{{/each}}',
            );
            await mkdir(join(shared, 'partials'));
            await writeFile(join(shared, 'partials', 'command.hbs'), 'CMD {{redisCommand this}}\n');
            await symlink(join(shared, 'queries.hbs'), join(dir, 'queries.redis.hbs'));
            await symlink(join(shared, 'partials'), join(dir, 'partials'));
            await symlink(dir, join(shared, 'partials', 'loop')); // a cycle is walked once
            const log: string[] = [];
            const { files } = await generateTarget(redisTarget, await fixture(), {
                templatesDir: dir,
                log: (m) => log.push(m),
            });
            expect(files.find((f) => f.path === 'queries.redis')!.content.split('\n')[0]).toBe(
                '# Q3_passengersOfGivenFlight',
            );
            expect(files.find((f) => f.path === 'indexes.redis')!.content.startsWith('CMD FT.CREATE ')).toBe(true);
            expect(log).toEqual([
                `templates from ${dir}: 2 override built-ins (partials/command.hbs, queries.redis.hbs)`,
            ]);
        } finally {
            await rm(shared, { recursive: true, force: true });
        }
    });

    test('a template that is a symbolic link to nothing is an error naming it', async () => {
        await symlink(join(dir, 'gone.hbs'), join(dir, 'queries.redis.hbs'));
        const error = await failure(generateTarget(redisTarget, await fixture(), { templatesDir: dir }));
        expect(error.code).toBe('template.link');
        expect(error.message).toBe(
            `${join(dir, 'queries.redis.hbs')}: the template is a symbolic link to a file that does not exist`,
        );
    });

    test('eject copies every built-in template and keeps files a user already has', async () => {
        await userTemplate('queries.redis.hbs', 'mine');
        const { copied, skipped } = await ejectTemplates('redis', dir);
        expect(skipped).toEqual(['queries.redis.hbs']);
        expect([...copied, ...skipped].sort()).toEqual(await listTemplateFiles(builtInTemplateDir('redis')));
        expect(await readFile(join(dir, 'queries.redis.hbs'), 'utf8')).toBe('mine');
    });

    test('ejected templates render exactly what the built-ins render', async () => {
        await ejectTemplates('redis', dir);
        const vm = (await generateTarget(redisTarget, await fixture(), {})).viewModel;
        expect(await renderTemplates(redisTarget, vm, { templatesDir: dir })).toEqual(
            await renderTemplates(redisTarget, vm),
        );
    });
});

describe('renderTemplate', () => {
    test('renders one entry exactly as renderTemplates does, and not the entries after it', async () => {
        const vm = (await generateTarget(redisTarget, await fixture(), {})).viewModel;
        const files = await renderTemplates(redisTarget, vm);
        expect(files.length).toBeGreaterThan(2);
        for (const file of files) expect(await renderTemplate(redisTarget, vm, file.path)).toBe(file.content);
        expect(await renderTemplate(redisTarget, vm, 'nothing.redis')).toBeUndefined();
        // A broken template after the one asked for is never compiled; renderTemplates finds it.
        await userTemplate('README.md.hbs', '{{#each collections}}');
        expect(await renderTemplate(redisTarget, vm, 'indexes.redis', { templatesDir: dir })).toBe(files[0]!.content);
        expect((await failure(renderTemplates(redisTarget, vm, { templatesDir: dir }))).code).toBe('template.parse');
    });
});

describe('view model validation', () => {
    test('the view model of every dialect matches its JSON Schema, and a broken one is rejected with the path', async () => {
        for (const dialect of ['redisearch2', 'redisearch1']) {
            const { viewModel } = await generateTarget(redisTarget, await fixture(), { dialect, dbPrefix: true });
            await expect(validateViewModel(redisTarget, viewModel)).resolves.toBeUndefined();
        }
        const { viewModel } = await generateTarget(redisTarget, await fixture(), {});
        const broken = JSON.parse(JSON.stringify(viewModel)) as { collections: { index: unknown }[] };
        broken.collections[0]!.index = 7;
        const error = await failure(validateViewModel(redisTarget, broken));
        expect(error.message).toContain('/collections/0/index must be string');
    });

    test('the validators compiled at build time accept and reject exactly what their schemas compiled now do', async () => {
        const { viewModel } = await generateTarget(redisTarget, await fixture(), { dialect: 'redisearch1' });
        const broken = JSON.parse(JSON.stringify(viewModel)) as { collections: Record<string, unknown>[] };
        broken.collections[0]!.index = 7;
        delete broken.collections[0]!.keyPrefix;
        broken.collections[0]!.extra = true;
        // One per schema a registered target declares (scripts/build-view-model-validators.mjs reads the registry).
        const declared = [...generationTargets.values()].flatMap((target) => target.viewModelSchema ?? []);
        expect(declared).toContain(redisTarget.templates!.viewModelSchema);
        expect([...VIEW_MODEL_VALIDATORS.keys()].sort()).toEqual([...new Set(declared)].sort());
        for (const [file, load] of VIEW_MODEL_VALIDATORS) {
            const prebuilt = await load();
            const schema = JSON.parse(await readFile(file, 'utf8')) as object;
            const compiled = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
            for (const data of [viewModel, broken, {}, null]) {
                expect(prebuilt(data)).toBe(compiled(data));
                expect(prebuilt.errors ?? null).toEqual(compiled.errors ?? null);
            }
        }
        expect((await VIEW_MODEL_VALIDATORS.get('schemas/redis-view-model.schema.json')!())(viewModel)).toBe(true);
    });

    // One test per example (each generates every template target's design, both dialects for redis): a whole
    // generate per design, slow beside the rest of the suite on two cores.
    test.each(['airflights', 'book-ratings', 'tournament'])(
        'the design every template target builds for %s matches its schema (generate checks it only for user templates)',
        async (example) => {
            const targets = [...generationTargets.values()].filter((target) => target.viewModelSchema !== undefined);
            expect(targets.map((target) => target.name)).toContain('redis');
            let checked = 0;
            for (const target of targets) {
                for (const targetOptions of target.name === 'redis' ? [{}, { dialect: 'redisearch1' }] : [{}]) {
                    const [result] = await generateModels([`examples/${example}/${example}.pidm`], {
                        target: target.name,
                        targetOptions,
                        outDir: dir,
                        dumpViewModel: true,
                    });
                    expect(result?.error).toBeUndefined();
                    const validate = await VIEW_MODEL_VALIDATORS.get(target.viewModelSchema!)!();
                    expect(validate(result?.viewModel)).toBe(true);
                    checked++;
                }
            }
            expect(checked).toBe(targets.length + 1);
        },
        180_000,
    );

    test('generate checks the view model against its schema when a templates folder is given', async () => {
        await userTemplate('README.md.hbs', 'custom\n');
        const run = (templatesDir?: string) =>
            streamTarget(
                redisTarget,
                { kvlm: { $type: 'KvlmModel', name: 'x', collections: 7 } } as unknown as DesignSource,
                templatesDir ? { templatesDir } : {},
            );
        const broken = redisTarget.buildDesign;
        try {
            redisTarget.buildDesign = () => ({ collections: 7 }) as never;
            expect((await failure(run(dir))).code).toBe('generation.view-model');
            await expect(run()).resolves.toBeDefined();
        } finally {
            redisTarget.buildDesign = broken;
        }
    });
});

describe('writeOutputs', () => {
    test('replaces the folder as a whole: new files written, stale files gone, nothing staged left behind', async () => {
        const out = join(dir, 'model', 'redis');
        await writeOutputs(out, [
            { path: 'a.redis', content: 'A' },
            { path: 'old.redis', content: 'old' },
        ]);
        await writeOutputs(out, [
            { path: 'a.redis', content: 'A2' },
            { path: 'sub/b.md', content: 'B' },
        ]);
        expect((await readdir(out)).sort()).toEqual(['a.redis', 'sub']);
        expect(await readFile(join(out, 'a.redis'), 'utf8')).toBe('A2');
        expect(await readdir(join(dir, 'model'))).toEqual(['redis']);
    });

    test('a failure while staging leaves the previous folder untouched and no temporary folder', async () => {
        const out = join(dir, 'model', 'redis');
        await writeOutputs(out, [{ path: 'a.redis', content: 'A' }]);
        // A path that is a file in one entry and a folder in the next cannot be staged.
        await expect(
            writeOutputs(out, [
                { path: 'x', content: '1' },
                { path: 'x/y', content: '2' },
            ]),
        ).rejects.toThrow();
        expect(await readdir(out)).toEqual(['a.redis']);
        expect(await readFile(join(out, 'a.redis'), 'utf8')).toBe('A');
        expect(await readdir(join(dir, 'model'))).toEqual(['redis']);
    });

    test('streamed files are written one by one; a failure while the next renders leaves the previous folder and no staging', async () => {
        const out = join(dir, 'model', 'redis');
        await writeOutputs(out, [{ path: 'a.redis', content: 'A' }]);
        const rendered: string[] = [];
        async function* failing(): AsyncGenerator<GeneratedFile> {
            rendered.push('b.redis');
            yield { path: 'b.redis', content: 'B' };
            // The first file is on disk (staged) before the second is asked for.
            expect(await readdir(dir, { recursive: true })).toContainEqual(
                expect.stringMatching(/staging-.*b\.redis$/),
            );
            throw new Error('template broke while rendering c.redis');
        }
        await expect(writeOutputs(out, failing())).rejects.toThrow('template broke');
        expect(rendered).toEqual(['b.redis']);
        expect(await readdir(out)).toEqual(['a.redis']);
        expect(await readdir(join(dir, 'model'))).toEqual(['redis']);
        async function* fine(): AsyncGenerator<GeneratedFile> {
            yield { path: 'b.redis', content: 'B' };
            yield { path: 'c/d.md', content: 'D' };
        }
        expect(await writeOutputs(out, fine())).toEqual(['b.redis', 'c/d.md']);
        expect((await readdir(out)).sort()).toEqual(['b.redis', 'c']);
    });

    test('the output folder gets the mode the umask gives any new folder, not a private one', async () => {
        const out = join(dir, 'model', 'redis');
        const previous = process.umask(0o022);
        try {
            await writeOutputs(out, [{ path: 'a.redis', content: 'A' }]);
        } finally {
            process.umask(previous);
        }
        expect((await stat(out)).mode & 0o777).toBe(0o755);
        expect((await stat(join(dir, 'model'))).mode & 0o777).toBe(0o755);
    });

    test('a path escaping the output folder is refused before anything is written', async () => {
        await expect(writeOutputs(join(dir, 'o'), [{ path: '../evil', content: '' }])).rejects.toThrow(
            /outside the output folder/,
        );
        expect(await readdir(dir)).toEqual([]);
    });
});
