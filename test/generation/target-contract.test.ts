/**
 * The target contract: options are declared once by their target and resolved from those declarations, no
 * front end names a target's option (so adding a target or an option changes no front end), and the generic
 * runtime names no engine (it knows engines only through the engine interface).
 */
import { describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveOptions } from '../../src/generation/generation-options.js';
import { generationTargets, targetOutputFolder } from '../../src/generation/generation-targets.js';
import { redisTarget, redisTargetOptions } from '../../src/generation/redis/redis-target.js';
import { repoRoot } from './generation-fixtures.js';

/** Every .ts file under a folder of the repository. */
function sources(folder: string): string[] {
    return readdirSync(join(repoRoot, folder), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .map((file) => join(folder, file));
}

/**
 * How a target option is named: by its flag (`--db-prefix`), as a quoted key or a property (`'limit'`,
 * `.dialect`), by a camelCase identifier (`dbPrefix`), or by one of its choices (`redisearch1`); plain English
 * ("the heap limit") is not naming it.
 */
function targetOptionPatterns(): { name: string; pattern: RegExp }[] {
    const patterns: { name: string; pattern: RegExp }[] = [];
    for (const target of generationTargets.values()) {
        for (const { name, flag, declaration } of target.options) {
            patterns.push({
                name,
                pattern: new RegExp(`--${flag}(?![\\w-])|['"\`]${name}['"\`]|\\.${name}(?![\\w-])`),
            });
            if (/[A-Z]/.test(name)) patterns.push({ name, pattern: new RegExp(`\\b${name}\\b`) });
            if (declaration.type === 'choice')
                for (const choice of declaration.choices)
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
            expect.arrayContaining(['dialect', 'dbPrefix', 'limit', 'redisearch1']),
        );
        // `doctor` and `conformance` too: they check a server through the target's engine runtime.
        const offences: string[] = [];
        for (const file of ['src/cli', 'src/extension', 'src/pipeline'].flatMap(sources)) {
            const lines = readFileSync(join(repoRoot, file), 'utf8').split('\n');
            for (const [index, line] of lines.entries()) {
                for (const { name, pattern } of patterns)
                    if (pattern.test(line)) offences.push(`${file}:${index + 1}: ${name}`);
                if (/generation\/(?!generation-)\w+\//.test(line))
                    offences.push(`${file}:${index + 1}: imports a target's module`);
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
