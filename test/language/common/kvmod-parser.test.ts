import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { CstUtils, createLangiumParser, type AstNode, type LangiumCoreServices, type LangiumParser } from 'langium';
import { createKvmodParser } from '../../../src/language/common/kvmod-parser.js';
import { createKvmodServices } from '../../../src/language/kvmod-module.js';

/** Every CST node as `offset:length:hidden:text`, in tree order: what "the same tree" means. */
function cstOf(parser: LangiumParser, text: string): string[] {
    const root = (parser.parse(text).value as AstNode).$cstNode!;
    return CstUtils.streamCst(root)
        .map((node) => `${node.offset}:${node.length}:${node.hidden}:${node.text}`)
        .toArray();
}

describe('createKvmodParser', () => {
    const services = createKvmodServices();
    const cases: [string, LangiumCoreServices, string][] = [
        [
            'a PIDM model with line and block comments',
            services.Pidm,
            readFileSync('examples/airflights/airflights.pidm', 'utf8'),
        ],
        [
            'comments between every kind of token',
            services.Pidm,
            '/*a*/ entity /*b*/ A /*c*/ { // d\n id /*e*/ x // f\n}\n// g\nquery /*h*/ Q: SELECT /*i*/ x, /*j*/ x FROM A /*k*/\n/* end */',
        ],
        ['a KVLM model with comments', services.Kvlm, readFileSync('test/fixtures/kvlm/airflights-q4q5.kvlm', 'utf8')],
    ];

    it.each(cases)(
        'builds exactly the CST Langium builds, hidden comment nodes included: %s',
        (_name, language, text) => {
            const expected = cstOf(createLangiumParser(language), text);
            expect(expected.some((line) => line.includes(':true:'))).toBe(true);
            expect(cstOf(createKvmodParser(language), text)).toEqual(expected);
        },
    );

    it('is the parser both languages use', () => {
        expect(cstOf(services.Pidm.parser.LangiumParser, cases[1][2])).toEqual(
            cstOf(createKvmodParser(services.Pidm), cases[1][2]),
        );
        const builder = (services.Pidm.parser.LangiumParser as unknown as { nodeBuilder: object }).nodeBuilder;
        expect(Object.prototype.hasOwnProperty.call(builder, 'addHiddenNodes')).toBe(true);
        const kvlmBuilder = (services.Kvlm.parser.LangiumParser as unknown as { nodeBuilder: object }).nodeBuilder;
        expect(Object.prototype.hasOwnProperty.call(kvlmBuilder, 'addHiddenNodes')).toBe(true);
    });
});
