import { describe, expect, test } from '@jest/globals';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { printKvlm } from '../../../src/language/kvlm/kvlm-printer.js';
import { fixtureCanonical, fixtureText, parseKvlm, services } from './kvlm-test-helpers.js';

/** Formats a text with the KVLM formatter (4 spaces, as the printer indents). */
async function format(text: string): Promise<string> {
    const document = await parseKvlm(text);
    const formatter = services.Kvlm.lsp.Formatter;
    if (!formatter) throw new Error('the KVLM formatter is not registered');
    const edits = await formatter.formatDocument(document, {
        textDocument: { uri: document.uri.toString() },
        options: { tabSize: 4, insertSpaces: true },
    });
    return TextDocument.applyEdits(TextDocument.create('file:///x.kvlm', 'kvlm', 1, text), edits);
}

/** The fixture squashed onto as few lines as the syntax allows, with odd spacing. */
function squash(text: string): string {
    return text
        .replace(/\n\s*/g, ' ')
        .replace(/ ?([(),.:?]) ?/g, '$1')
        .replace(/\{/g, '   {   ')
        .trim();
}

describe('the KVLM formatter', () => {
    test('the fixture is already formatted, its comment kept', async () => {
        expect(await format(fixtureText)).toBe(fixtureText);
    });

    test('a squashed fixture formats to exactly what the printer writes', async () => {
        const squashed = squash(fixtureCanonical);
        expect(squashed.split('\n')).toHaveLength(1);
        const formatted = await format(squashed);
        expect(formatted).toBe(fixtureCanonical);
        expect(formatted).toBe(printKvlm((await parseKvlm(fixtureCanonical)).parseResult.value));
    });

    test('formatting is idempotent', async () => {
        const once = await format(squash(fixtureCanonical));
        expect(await format(once)).toBe(once);
    });

    test('names spelled like keywords are laid out as names, and parenthesised filters keep tight parentheses', async () => {
        const text = [
            'database   query',
            'collection collection{key key counter from from as from',
            'field where :text=from . label label "x" indexed projected ( query ) sorted(query)',
            'field n: int = from.n projected(query) ranged(query) filtered(query)',
            'query query{param param:int where not ( n < ?param or n = - 1 ) and n != 2 order by where desc select where as "w" , n}}',
            'merge a+b->collection common 1 of 1 and 1 merge c + d refused "r" common 0 of 1 and 1',
        ].join('\n');
        const expected = [
            'database query',
            '',
            'collection collection {',
            '    key key counter',
            '    from from as from',
            '    field where: text = from.label label "x" indexed projected(query) sorted(query)',
            '    field n: int = from.n projected(query) ranged(query) filtered(query)',
            '    query query {',
            '        param param: int',
            '        where not (n < ?param or n = -1) and n != 2',
            '        order by where desc',
            '        select where as "w", n',
            '    }',
            '}',
            '',
            'merge a + b -> collection common 1 of 1 and 1',
            'merge c + d refused "r" common 0 of 1 and 1',
            '',
        ].join('\n');
        expect(await format(text)).toBe(expected);
    });

    test('comments stay, indented like the code around them', async () => {
        const text =
            'database d\ncollection C {\nkey C_id counter\n        // the grain\nfrom E as E // root\nfield f: text = E.f projected(Q)\nquery Q {\n/* all */\nselect f\n}\n}';
        expect(await format(text)).toBe(
            'database d\n\ncollection C {\n    key C_id counter\n    // the grain\n    from E as E // root\n    field f: text = E.f projected(Q)\n    query Q {\n        /* all */\n        select f\n    }\n}\n',
        );
    });
});
