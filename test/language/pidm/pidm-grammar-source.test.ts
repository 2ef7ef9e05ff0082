import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { glob } from 'tinyglobby';
import { isAstNode, isReference, loadGrammarFromJson, type AstNode, type Grammar } from 'langium';
import { BatchCstNode } from '../../../src/language/common/batch-cst.js';
import { createKvmodCoreServices } from '../../../src/language/kvmod-core-module.js';
import { FALLBACKS } from '../../../src/language/pidm/pidm-batch-parser.js';
import { printPidm } from '../../../src/language/pidm/pidm-printer.js';
import { generateGridPidm, generateRandomPidm } from '../../../src/testing/random-pidm.js';
import { rangeOf } from '../common/cst-facts.js';

/**
 * The grammar is the only source of PIDM's syntax: the command line's parser (pidm-batch-parser.ts, compiled from
 * the grammar at start-up), the lexer's layout rule and the syntax messages read it, and the batch parser never
 * leaves a text without a syntax error to Langium's parser.
 */

/** Every node of a tree, field by field in key order, with its range, container and references. */
function tree(root: AstNode): string[] {
    const lines: string[] = [];
    const visit = (node: AstNode, path: string): void => {
        lines.push(
            `${path} ${node.$type} [${Object.keys(node).join(',')}] ${rangeOf(node.$cstNode)} ${node.$containerProperty}[${node.$containerIndex}]`,
        );
        for (const [key, value] of Object.entries(node)) {
            if (key.startsWith('$')) continue;
            (Array.isArray(value) ? value : [value]).forEach((item: unknown, index) => {
                const at = `${path}.${key}${Array.isArray(value) ? `[${index}]` : ''}`;
                if (isAstNode(item)) visit(item, at);
                else if (isReference(item))
                    lines.push(`${at} -> ${JSON.stringify(item.$refText)} ${rangeOf(item.$refNode)}`);
                else lines.push(`${at} = ${JSON.stringify(item)}`);
            });
        }
    };
    visit(root, 'model');
    return lines;
}

/** Generates the Langium output of a copy of the grammars, as `npm run langium:generate` does, and loads the PIDM grammar from it. */
function buildGrammarCopy(edit: (pidm: string) => string): Grammar {
    const dir = mkdtempSync(join(tmpdir(), 'kvmod-grammar-'));
    try {
        copyFileSync('metamodels/common.langium', join(dir, 'common.langium'));
        writeFileSync(join(dir, 'pidm.langium'), edit(readFileSync('metamodels/pidm.langium', 'utf8')));
        const config = {
            projectName: 'Kvmod',
            mode: 'production',
            languages: [{ id: 'pidm', grammar: 'pidm.langium', fileExtensions: ['.pidm'], caseInsensitive: true }],
            out: 'generated',
        };
        writeFileSync(join(dir, 'langium-config.json'), JSON.stringify(config));
        const cli = join(process.cwd(), 'node_modules/langium-cli/bin/langium.js');
        const run = spawnSync(
            process.execPath,
            ['--import', join(process.cwd(), 'scripts/polyfills.mjs'), cli, 'generate', '-f', 'langium-config.json'],
            { cwd: dir, encoding: 'utf8' },
        );
        if (run.status !== 0) throw new Error(`langium generate failed: ${run.stdout}${run.stderr}`);
        const generated = readFileSync(join(dir, 'generated/grammar.ts'), 'utf8');
        const literal = /loadedPidmGrammar = loadGrammarFromJson\(('(?:[^'\\]|\\.)*')\)/.exec(generated)?.[1];
        if (!literal) throw new Error('No PIDM grammar in the generated grammar.ts');
        return loadGrammarFromJson(new Function(`return ${literal};`)() as string);
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
}

describe('the PIDM grammar as the only source of its syntax', () => {
    it('takes a synonym added to a copy of the grammar, with no other edit, on the command line path', () => {
        const grammar = buildGrammarCopy((pidm) =>
            pidm.replace(
                "| 'date' | 'time' | 'datetime' | 'timestamp';",
                "| 'date' | 'time' | 'datetime' | 'timestamp' | 'varchar';",
            ),
        );
        // The command line's services (src/pipeline/load.ts) and Langium's own parser, on the copy.
        const batch = createKvmodCoreServices({}, { batch: true, pidmModule: { Grammar: () => grammar } });
        const langium = createKvmodCoreServices({}, { pidmModule: { Grammar: () => grammar } });
        const stock = createKvmodCoreServices({}, { batch: true });
        const text =
            'entity Book {\n  id code\n  varchar title\n  name varchar\n  price: float\n}\nquery Q: SELECT Book.title FROM Book WHERE Book.name = "?"\n';
        // The grammar the build generated does not know the word: the edit is what makes it a type.
        expect(stock.Pidm.parser.LangiumParser.parse(text).parserErrors.length).toBeGreaterThan(0);
        const fallbacks = FALLBACKS.count;
        const actual = batch.Pidm.parser.LangiumParser.parse(text);
        const expected = langium.Pidm.parser.LangiumParser.parse(text);
        expect(expected.parserErrors).toEqual([]);
        expect(actual.parserErrors).toEqual([]);
        expect(actual.value.$cstNode).toBeInstanceOf(BatchCstNode);
        expect(FALLBACKS.count).toBe(fallbacks);
        expect(tree(actual.value)).toEqual(tree(expected.value));
        // `id code` then `varchar title` on the next line: the layout rule ends the identifier before the type word.
        const members = tree(actual.value).filter((line) => /\.members\[\d\]\.(name|type) =/.test(line));
        expect(members).toEqual([
            'model.entities[0].members[0].name = "code"',
            'model.entities[0].members[0].type = undefined',
            'model.entities[0].members[1].name = "title"',
            'model.entities[0].members[1].type = "varchar"',
            'model.entities[0].members[2].name = "name"',
            'model.entities[0].members[2].type = "varchar"',
            'model.entities[0].members[3].name = "price"',
            'model.entities[0].members[3].type = "float"',
        ]);
        // The syntax messages read the copy's type words too.
        const broken = batch.Pidm.parser.LangiumParser.parse('entity A { id k\n  name }');
        expect(broken.parserErrors.map((error) => error.message)).toEqual(
            langium.Pidm.parser.LangiumParser.parse('entity A { id k\n  name }').parserErrors.map(
                (error) => error.message,
            ),
        );
    }, 60_000);

    it('never leaves a text without a syntax error to Langium: every example, fixture and random model', async () => {
        const batch = createKvmodCoreServices({}, { batch: true });
        const parser = batch.Pidm.parser.LangiumParser;
        const texts: [string, string][] = [];
        for (const path of await glob(['examples/**/*.pidm', 'test/**/*.pidm']))
            texts.push([path, readFileSync(path, 'utf8')]);
        for (let seed = 1; seed <= 40; seed++) {
            const options = {
                seed,
                queries: 2 + (seed % 9) * 3,
                fieldsPerQuery: 1 + (seed % 7) * 4,
                chain: seed % 2 === 0,
                grainNoise: (seed % 5) / 5,
            };
            texts.push([`random-${seed}`, printPidm(generateRandomPidm(options))]);
        }
        texts.push([
            'grid',
            printPidm(
                generateGridPidm({ queries: 30, fieldsPerQuery: 40, seed: 5, entities: 4, attributesPerEntity: 20 }),
            ),
        ]);
        const before = FALLBACKS.count;
        let parsed = 0;
        for (const [, text] of texts) {
            const result = parser.parse(text);
            if (result.parserErrors.length === 0 && result.lexerErrors.length === 0 && text.trim() !== '') {
                parsed++;
            }
        }
        expect({ fallbacks: FALLBACKS.count - before, first: FALLBACKS.texts[before]?.slice(0, 200) }).toEqual({
            fallbacks: 0,
            first: undefined,
        });
        expect(parsed).toBeGreaterThan(50);
    }, 120_000);

    it('counts a fallback: a text the batch parser cannot take but Langium parses', () => {
        const batch = createKvmodCoreServices({}, { batch: true });
        const before = FALLBACKS.count;
        // 300 `and`s in one chain: past the batch parser's chain limit, valid for Langium's parser.
        const text = `entity A { id x }\nquery Q: SELECT x FROM A WHERE ${Array.from({ length: 300 }, () => 'x = "?"').join(' and ')}`;
        expect(batch.Pidm.parser.LangiumParser.parse(text).parserErrors).toEqual([]);
        expect(FALLBACKS.count).toBe(before + 1);
    });
});
