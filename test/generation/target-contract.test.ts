/**
 * The target contract: options are declared once by their target and resolved from those declarations, no
 * front end names a target's option (so adding a target or an option changes no front end), and the generic
 * runtime names no engine (it knows engines only through the engine interface).
 */
import { describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { choiceOption, resolveOptions, type OptionDeclarations } from '../../src/generation/generation-options.js';
import {
    generationTargets,
    registerTarget,
    targetOutputFolder,
    targetVariants,
} from '../../src/generation/generation-targets.js';
import { redisTarget, redisTargetOptions } from '../../src/generation/redis/redis-target.js';
import { repoRoot } from './generation-fixtures.js';

/** Every .ts file under a folder of the repository. */
function sources(folder: string): string[] {
    return readdirSync(join(repoRoot, folder), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .map((file) => join(folder, file));
}

/**
 * The files that must find targets in the registry, never by name (adding a target edits none of them): the front
 * ends, the pipeline, the generation engine, and the build scripts that derive the examples' goldens, the view-model
 * validators, the settings, the config schema and the command reference. Not in it: the registry itself
 * (generation-targets.ts), the package's public API (index.ts, which exports the Redis target for programs that use
 * it), the benchmarks (they measure engines), and the typescript target's own build step (embed-client-runtime.mjs,
 * and its output's line in check-generated.sh).
 */
function generic(): string[] {
    const scripts = readdirSync(join(repoRoot, 'scripts'))
        .filter((name) => /\.(mjs|sh)$/.test(name) && !name.startsWith('bench-') && name !== 'embed-client-runtime.mjs')
        .map((name) => `scripts/${name}`);
    const engine = readdirSync(join(repoRoot, 'src/generation'))
        .filter((name) => name.endsWith('.ts') && name !== 'generation-targets.ts' && name !== 'index.ts')
        .map((name) => `src/generation/${name}`);
    return [...['src/cli', 'src/extension', 'src/pipeline', 'src/api'].flatMap(sources), ...engine, ...scripts];
}

/** Lines where a target's name means something else: the server option and node-redis, the compiler package. */
const OTHER_MEANINGS: Readonly<Record<string, RegExp>> = {
    redis: /\.option\('redis'|new Set\(\['redis'\]\)|"redis" in kvmod\.config|from 'redis'|import\('redis'\)/,
    typescript: /from 'typescript'|import\('typescript'\)|const external = \[/,
};

/**
 * How a line names a target in code: as a string (`'report'`), a path segment (`'examples/x/report/'`,
 * `./report/`), or on a command line (`--target report`, `-t report`).
 */
function namesTarget(line: string, target: string): boolean {
    const name = target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const named = new RegExp(`(['"\`/])${name}\\1|['"\`]${name}/|/${name}['"\`]|(?:--target|-t) ${name}(?![\\w-])`);
    return named.test(line) && !OTHER_MEANINGS[target]?.test(line);
}

/**
 * How a target option is named: by its flag (`--db-prefix`), as a quoted key or a property (`'limit'`,
 * `.dialect`), by a camelCase identifier (`dbPrefix`), or by one of its choices (`redisearch1`); plain English
 * ("the heap limit") is not naming it.
 */
function targetOptionPatterns(): { name: string; pattern: RegExp }[] {
    const patterns: { name: string; pattern: RegExp }[] = [];
    const targetNames = new Set(generationTargets.keys());
    for (const target of generationTargets.values()) {
        for (const { name, flag, declaration } of target.options) {
            // A property (`.dialect`), not a spread (`...design`): a variable may share an option's name.
            patterns.push({
                name,
                pattern: new RegExp(`--${flag}(?![\\w-])|['"\`]${name}['"\`]|(?<!\\.\\.)\\.${name}(?![\\w-])`),
            });
            if (/[A-Z]/.test(name)) patterns.push({ name, pattern: new RegExp(`\\b${name}\\b`) });
            // A choice that is a target's name (the report's `--design redis-core`) names that target, which front
            // ends may do.
            if (declaration.type === 'choice')
                for (const choice of declaration.choices.filter((c) => !targetNames.has(c)))
                    patterns.push({ name: choice, pattern: new RegExp(`(?<![\\w-])${choice}(?![\\w-])`) });
        }
    }
    return patterns;
}

/** A source without its comments (block and line comments; good enough for kvmod's own files). */
function withoutComments(text: string): string {
    return text
        .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ''))
        .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

describe('the target contract', () => {
    test('no file under src/cli, src/extension or src/pipeline names a target option, a choice of one, or a target folder', () => {
        const patterns = targetOptionPatterns();
        expect(patterns.map((p) => p.name)).toEqual(
            expect.arrayContaining(['dialect', 'dbPrefix', 'limit', 'redisearch1', 'design']),
        );
        // The check itself: code naming a choice is seen, a comment explaining it is not.
        const named = (text: string) =>
            withoutComments(text)
                .split('\n')
                .filter((line) => patterns.some((p) => p.pattern.test(line)));
        expect(named("/** Picks the redisearch1 dialect's words. */\nconst words = 1;")).toEqual([]);
        expect(named("const dialect = 'redisearch1'; // the default")).toEqual(["const dialect = 'redisearch1'; "]);
        // `doctor` and `conformance` too: they check a server through the target's engine runtime.
        const offences: string[] = [];
        for (const file of ['src/cli', 'src/extension', 'src/pipeline'].flatMap(sources)) {
            // Code only: a comment explaining why a dialect or an option exists is not a front end naming it.
            const lines = withoutComments(readFileSync(join(repoRoot, file), 'utf8')).split('\n');
            for (const [index, line] of lines.entries()) {
                for (const { name, pattern } of patterns)
                    if (pattern.test(line)) offences.push(`${file}:${index + 1}: ${name}`);
                if (/generation\/(?!generation-)\w+\//.test(line))
                    offences.push(`${file}:${index + 1}: imports a target's module`);
            }
        }
        expect(offences).toEqual([]);
    });

    test('no front end, engine module or build script names a target: they find targets in the registry', () => {
        // The check itself: it sees the hard-coded lists the registry replaced.
        expect(namesTarget("for (const target of ['redis', 'redis-core'])", 'redis-core')).toBe(true);
        expect(namesTarget("const dir = join(example.dir, 'report');", 'report')).toBe(true);
        expect(namesTarget('kvmod generate model.pidm --target typescript -o out', 'typescript')).toBe(true);
        expect(namesTarget(".option('redis', { type: 'string' })", 'redis')).toBe(false);
        const files = generic();
        expect(files).toEqual(
            expect.arrayContaining([
                'scripts/regenerate-examples.mjs',
                'scripts/build-view-model-validators.mjs',
                'scripts/check-generated.sh',
                'src/generation/generation-engine.ts',
                'src/cli/generate-command.ts',
            ]),
        );
        const offences: string[] = [];
        for (const file of files) {
            const text = readFileSync(join(repoRoot, file), 'utf8');
            const code = file.endsWith('.sh') ? text.replace(/^\s*#.*$/gm, '') : withoutComments(text);
            for (const [index, line] of code.split('\n').entries())
                for (const target of generationTargets.keys())
                    if (namesTarget(line, target)) offences.push(`${file}:${index + 1}: ${target}`);
        }
        // The typescript target's run-time files, which its own build step writes.
        expect(offences).toEqual(['scripts/check-generated.sh:13: typescript']);
    });

    test('no test or script hard-codes the list of targets (three target names within five lines)', () => {
        // A target named as a word, or in the name of a file named after it (`schemas/report-view-model.schema.json`).
        const mentions = (line: string, target: string) =>
            new RegExp(`(?<![\\w-])${target}(?=-view-model|-target|[^\\w-]|$)`).test(line) &&
            !OTHER_MEANINGS[target]?.test(line);
        expect(mentions("'schemas/redis-core-view-model.schema.json',", 'redis-core')).toBe(true);
        expect(mentions("'schemas/redis-core-view-model.schema.json',", 'redis')).toBe(false);
        const files = [
            ...readdirSync(join(repoRoot, 'test'), { recursive: true, encoding: 'utf8' })
                .filter((file) => /\.(ts|mjs)$/.test(file))
                .map((file) => `test/${file}`)
                // This file's own samples of what the checks see.
                .filter((file) => file !== 'test/generation/target-contract.test.ts'),
            ...readdirSync(join(repoRoot, 'scripts')).map((file) => `scripts/${file}`),
        ];
        const targets = [...generationTargets.keys()];
        const offences: string[] = [];
        for (const file of files) {
            const lines = withoutComments(readFileSync(join(repoRoot, file), 'utf8')).split('\n');
            for (let index = 0; index < lines.length; index++) {
                const window = lines.slice(index, index + 5);
                const named = targets.filter((target) => window.some((line) => mentions(line, target)));
                if (named.length > 2 && targets.some((target) => mentions(lines[index], target))) {
                    offences.push(`${file}:${index + 1}: ${named.join(', ')}`);
                    index += 4;
                }
            }
        }
        expect(offences).toEqual([]);
    });

    test('the generic runtime names no engine (nor a RediSearch dialect): engines are reached through the engine interface', () => {
        // Generic: every module at the top of src/runtime (the engines' own are in a folder per engine, and the
        // Redis connection in its own) but the engine registry, whose lines name each engine; and the entity
        // operations (src/runtime/entities), which every engine's entity store shares.
        const modules = (folder: string): string[] =>
            readdirSync(join(repoRoot, 'src/runtime', folder), { withFileTypes: true })
                .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
                .map((entry) => join(folder, entry.name));
        const generic = [...modules(''), ...modules('entities')].filter((name) => name !== 'engine-registry.ts');
        expect(generic).toEqual(
            expect.arrayContaining([
                'runtime-actions.ts',
                'verify.ts',
                'oracle.ts',
                'collation.ts',
                'engine.ts',
                'entities/entity-operations.ts',
            ]),
        );
        const patterns = [
            { name: 'an engine', pattern: /redis/i },
            { name: "a target's module", pattern: /generation\/(?!generation-)\w+\// },
        ];
        const offences: string[] = [];
        for (const name of generic) {
            const code = withoutComments(readFileSync(join(repoRoot, 'src/runtime', name), 'utf8')).split('\n');
            for (const [index, line] of code.entries())
                for (const { name: named, pattern } of patterns)
                    if (pattern.test(line)) offences.push(`src/runtime/${name}:${index + 1}: ${named}`);
        }
        expect(offences).toEqual([]);
    });

    test('options resolve from the declarations: defaults filled, given values checked, undeclared options refused', () => {
        expect(resolveOptions('redis', redisTargetOptions, {})).toEqual({
            dialect: 'redisearch2',
            dbPrefix: false,
            limit: 10000,
        });
        expect(
            resolveOptions('redis', redisTargetOptions, { dialect: 'redisearch1', dbPrefix: 'true', limit: '25' }),
        ).toEqual({
            dialect: 'redisearch1',
            dbPrefix: true,
            limit: 25,
        });
        expect(() => resolveOptions('redis', redisTargetOptions, { dialect: 'redisearch3' })).toThrow(
            "invalid value 'redisearch3' for --dialect of target redis (valid: redisearch2, redisearch1)",
        );
        expect(() => resolveOptions('redis', redisTargetOptions, { limit: 2.5 })).toThrow(
            "invalid value '2.5' for --limit of target redis (valid: a whole number from 1 to 1000000)",
        );
        expect(() => resolveOptions('redis', redisTargetOptions, { pageSize: 3 })).toThrow(
            'target redis has no option --page-size (its options: --dialect, --db-prefix, --limit)',
        );
    });

    test('a target with an output-folder option writes into a folder per value', () => {
        const redis = generationTargets.get(redisTarget.name)!;
        expect(targetOutputFolder(redis, {})).toEqual(['redis', 'redisearch2']);
        expect(targetOutputFolder(redis, { dialect: 'redisearch1' })).toEqual(['redis', 'redisearch1']);
    });

    test('the examples hold the output of every registered target, one folder per output variant, and no other', () => {
        const examples = readdirSync(join(repoRoot, 'examples'), { withFileTypes: true })
            .filter((entry) => entry.isDirectory())
            .map((entry) => entry.name);
        expect(examples.length).toBeGreaterThan(0);
        for (const example of examples) {
            const dir = join(repoRoot, 'examples', example);
            // A folder of model variants (only .pidm files: examples/book-ratings/workloads) is a source, not output.
            const variants = (name: string) => readdirSync(join(dir, name)).every((file) => file.endsWith('.pidm'));
            const folders = readdirSync(dir, { withFileTypes: true })
                .filter((entry) => entry.isDirectory() && !variants(entry.name))
                .map((entry) => entry.name)
                .sort();
            expect(folders).toEqual([...generationTargets.keys()].sort());
            for (const target of generationTargets.values())
                for (const { folder } of targetVariants(target))
                    expect(readdirSync(join(dir, ...folder)).length).toBeGreaterThan(0);
        }
    });

    test('a target registered in-process gets one output per value of its output-folder option, or one', () => {
        const toy = (options: OptionDeclarations) =>
            registerTarget({ name: 'toy', description: 'a toy', options, buildDesign: () => ({}) });
        expect(targetVariants(toy({}))).toEqual([{ options: {}, folder: ['toy'] }]);
        const flavours = toy({ flavour: choiceOption(['sweet', 'sour'], 'sweet', 'Taste', { outputFolder: true }) });
        expect(targetVariants(flavours)).toEqual([
            { options: { flavour: 'sweet' }, folder: ['toy', 'sweet'] },
            { options: { flavour: 'sour' }, folder: ['toy', 'sour'] },
        ]);
        expect(targetVariants(toy({ flavour: choiceOption(['sweet', 'sour'], 'sweet', 'Taste') }))).toEqual([
            { options: {}, folder: ['toy'] },
        ]);
    });

    test('a value that names a folder of its own replaces the output-folder option there (the redis-core client)', () => {
        const toy = registerTarget({
            name: 'toy',
            description: 'a toy',
            options: {
                design: choiceOption(['a', 'b', 'c'], 'a', 'Design', { folderValues: ['b'] }),
                flavour: choiceOption(['sweet', 'sour'], 'sweet', 'Taste', { outputFolder: true }),
            },
            buildDesign: () => ({}),
        });
        expect(targetVariants(toy)).toEqual([
            { options: { flavour: 'sweet' }, folder: ['toy', 'sweet'] },
            { options: { flavour: 'sour' }, folder: ['toy', 'sour'] },
            { options: { design: 'b' }, folder: ['toy', 'b'] },
        ]);
        expect(targetOutputFolder(toy, { design: 'b', flavour: 'sour' })).toEqual(['toy', 'b']);
        expect(targetOutputFolder(toy, { design: 'c', flavour: 'sour' })).toEqual(['toy', 'sour']);
        const typescript = generationTargets.get('typescript')!;
        expect(targetVariants(typescript).map((v) => v.folder.join('/'))).toEqual([
            'typescript/redisearch2',
            'typescript/redisearch1',
            'typescript/redis-core',
            'typescript/dynamodb',
        ]);
    });

    test('the extension settings in package.json are the ones the declarations give', () => {
        const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
            contributes: { configuration: { properties: Record<string, { default: unknown; enum?: string[] }> } };
        };
        const properties = manifest.contributes.configuration.properties;
        expect(properties['kvmod.generate.target'].enum).toEqual([...generationTargets.keys()]);
        for (const target of generationTargets.values()) {
            for (const { name, declaration } of target.options) {
                const property = properties[`kvmod.${target.name}.${name}`];
                expect(property?.default).toEqual(declaration.default);
                if (declaration.type === 'choice') expect(property.enum).toEqual(declaration.choices);
            }
        }
    });
});
