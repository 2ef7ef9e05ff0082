/**
 * The two ways a large Redis output is made faster must not change a byte: the hand-compiled field table and
 * query section (redis-partial-renderers.ts) against the Handlebars partials they stand for, and files written in chunks (each
 * top-level loop's iterations encoded as they are made) against the file rendered as one string — with the
 * built-in templates, and with user templates that do what makes the chunked way give up (a loop inside an
 * indented partial, inline partials, a loop's text given to a helper).
 */
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateTarget, redisTarget, builtInTemplateDir } from '../../src/generation/index.js';
import { streamTarget, type GenerateOptions } from '../../src/generation/generation-engine.js';
import { isChunkedFile, type GeneratedFile } from '../../src/generation/generation-target.js';
import type { KvlmModel } from '../../src/language/generated/ast.js';
import { KVLM_MODELS, loadKvlmFile } from './generation-fixtures.js';
import { displayRedisCommand, formatRedisCommand } from '../../src/generation/redis/redis-commands.js';
import { formatCliCommand } from '../../src/generation/shared/redis-escaping.js';
import { buildRedisViewModel } from '../../src/generation/redis/redis-view-model.js';
import type { RedisCommand } from '../../src/generation/redis/redis-view-model-types.js';

let dir: string;
beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kvmod-fast-'));
});
afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
});

async function userTemplate(name: string, text: string): Promise<void> {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text);
}

/** The Redis target without its hand-compiled partials: every partial rendered by Handlebars. */
const handlebarsOnly: typeof redisTarget = {
    ...redisTarget,
    templates: { ...redisTarget.templates!, partialRenderers: {} },
};

async function chunkedFiles(model: KvlmModel, options: GenerateOptions): Promise<GeneratedFile[]> {
    const stream = await streamTarget(redisTarget, model, options, { chunks: true });
    const files: GeneratedFile[] = [];
    for await (const file of stream.files) files.push(file);
    return files;
}

function bytesOf(file: GeneratedFile): Buffer {
    return isChunkedFile(file) ? Buffer.concat(file.chunks) : Buffer.from(file.content, 'utf8');
}

const models = KVLM_MODELS;
const optionSets: GenerateOptions[] = [{}, { dialect: 'redisearch1' }, { dbPrefix: true }];

describe('the hand-compiled field table and query section', () => {
    test.each(models)('renders %s exactly as the Handlebars partial does, in every dialect', async (path) => {
        const model = await loadKvlmFile(path);
        for (const options of optionSets) {
            const fast = await generateTarget(redisTarget, model, options);
            const slow = await generateTarget(handlebarsOnly, model, options);
            expect(fast.files.map((f) => f.path)).toEqual(slow.files.map((f) => f.path));
            for (const [i, file] of fast.files.entries()) expect(file.content).toBe(slow.files[i]!.content);
        }
    });

    test('stands for the built-in partial as it is now (an edited built-in must update the renderer, or it is never used)', async () => {
        const renderers = redisTarget.templates!.partialRenderers!;
        expect(Object.keys(renderers)).toEqual(['field-table', 'query-section']);
        for (const [name, renderer] of Object.entries(renderers)) {
            const text = await readFile(join(builtInTemplateDir('redis'), `partials/${name}.hbs`), 'utf8');
            expect(createHash('sha256').update(text).digest('hex')).toBe(renderer.sha256);
        }
    });

    test('is used for the built-in text only: an overriding partial is rendered, an ejected unchanged copy renders alike', async () => {
        const model = await loadKvlmFile(models[0]!);
        const builtIn = (await generateTarget(redisTarget, model)).files.find((f) => f.path === 'README.md')!.content;
        await mkdir(join(dir, 'partials'), { recursive: true });
        await copyFile(
            join(builtInTemplateDir('redis'), 'partials/field-table.hbs'),
            join(dir, 'partials/field-table.hbs'),
        );
        const ejected = await generateTarget(redisTarget, model, { templatesDir: dir });
        expect(ejected.files.find((f) => f.path === 'README.md')!.content).toBe(builtIn);
        await userTemplate('partials/field-table.hbs', 'FIELDS {{#each fields}}{{name}};{{/each}}\n');
        const overridden = await generateTarget(redisTarget, model, { templatesDir: dir });
        const readme = overridden.files.find((f) => f.path === 'README.md')!.content;
        expect(readme).toMatch(/^FIELDS [A-Za-z_]+;/m);
        expect(readme).not.toContain('| field | label | type |');
    });

    test('leaves a context it does not expect to Handlebars: the same text, or the same strict-mode error', async () => {
        const model = await loadKvlmFile(models[0]!);
        const outcome = async (target: typeof redisTarget) =>
            generateTarget(target, model, { templatesDir: dir }).then(
                (r) => r.files.find((f) => f.path === 'README.md')!.content,
                (error: unknown) => `error: ${error instanceof Error ? error.message : String(error)}`,
            );
        for (const call of [
            '{{> field-table root}}',
            '{{> field-table fields=name}}',
            '{{> field-table fields=nodes}}',
        ]) {
            await userTemplate('README.md.hbs', `{{#each collections}}${call}{{/each}}`);
            expect(await outcome(redisTarget)).toBe(await outcome(handlebarsOnly));
        }
        // The nodes lack a field's properties: strict mode names the partial's line.
        expect(await outcome(redisTarget)).toMatch(
            /^error: templates\/redis\/partials\/field-table\.hbs:\d+:\d+: '\w+' is not defined/,
        );
        for (const call of [
            '{{#each queries}}{{> query-section projections=params}}{{/each}}',
            '{{#each queries}}{{> query-section command=name}}{{/each}}',
            '{{> query-section}}',
        ]) {
            await userTemplate('README.md.hbs', `{{#each collections}}${call}{{/each}}`);
            expect(await outcome(redisTarget)).toBe(await outcome(handlebarsOnly));
        }
        // A collection is no query (no `kind`, no `sortKeys`…): the error names the partial's line.
        expect(await outcome(redisTarget)).toMatch(/^error: templates\/redis\/partials\/query-section\.hbs:\d+:\d+: /);
    });
});

describe('the command lines of the templates', () => {
    test.each(models)('are the quoted display argv of every command of %s, in every dialect', async (path) => {
        const model = await loadKvlmFile(path);
        for (const dialect of ['redisearch2', 'redisearch1'] as const) {
            const commands: RedisCommand[] = [];
            const walk = (value: unknown): void => {
                if (Array.isArray(value)) value.forEach(walk);
                else if (typeof value === 'object' && value !== null) {
                    if (Array.isArray((value as RedisCommand).argv)) commands.push(value as RedisCommand);
                    else Object.values(value).forEach(walk);
                }
            };
            walk(buildRedisViewModel(model, { dialect }));
            expect(commands.length).toBeGreaterThan(3);
            for (const command of commands)
                expect(formatRedisCommand(command)).toBe(formatCliCommand(displayRedisCommand(command)));
        }
    });
});

describe('files written in chunks', () => {
    test.each(models)('hold the bytes of the whole-string rendering for %s', async (path) => {
        const model = await loadKvlmFile(path);
        for (const options of optionSets) {
            const whole = (await generateTarget(redisTarget, model, options)).files;
            const chunked = await chunkedFiles(model, options);
            expect(chunked.map((f) => f.path)).toEqual(whole.map((f) => f.path));
            expect(chunked.some(isChunkedFile)).toBe(true);
            for (const [i, file] of chunked.entries()) {
                expect(bytesOf(file).equals(Buffer.from(whole[i]!.content, 'utf8'))).toBe(true);
                expect(file.content).toBe(whole[i]!.content);
            }
        }
    });

    test('are rendered whole when a loop is indented by a partial, inside an inline partial, or handed to a helper', async () => {
        const model = await loadKvlmFile(models[0]!);
        await userTemplate(
            'README.md.hbs',
            'head\n  {{> loop}}\n{{#each collections}}A {{name}}\n{{/each}}mid {{#mdCode}}{{#each collections}}{{name}}{{/each}}{{/mdCode}}\ntail\n',
        );
        await userTemplate('partials/loop.hbs', '{{#each collections}}L {{name}}\n{{/each}}');
        await userTemplate(
            'queries.redis.hbs',
            '{{#*inline "q"}}{{#each collections}}Q {{name}}\n{{/each}}{{/inline}}x\n  {{> q}}\n{{#each collections}}{{name}}\n{{/each}}',
        );
        const options = { templatesDir: dir };
        const whole = (await generateTarget(redisTarget, model, options)).files;
        const chunked = await chunkedFiles(model, options);
        const readme = chunked.find((f) => f.path === 'README.md')!;
        expect(readme.content).toContain('\n  L ');
        for (const [i, file] of chunked.entries())
            expect(bytesOf(file).equals(Buffer.from(whole[i]!.content, 'utf8'))).toBe(true);
        expect(isChunkedFile(chunked.find((f) => f.path === 'queries.redis')!)).toBe(false);
    });
});
