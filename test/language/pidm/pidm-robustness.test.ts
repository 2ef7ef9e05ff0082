import { afterEach, beforeEach, describe, expect, jest, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { validatePidm } from './pidm-test-helpers.js';

const example = readFileSync('examples/airflights/airflights.pidm', 'utf8');

/** The example cut into words, punctuation and whitespace, so that variants stay close to real models. */
const pieces = example.match(/\s+|\/\/[^\n]*|"[^"]*"|[A-Za-z_]\w*|\d+|\.\.|[<>!=]=|<>|./g) ?? [];
const tokenIndexes = pieces.map((piece, index) => (/^\s+$/.test(piece) ? -1 : index)).filter((index) => index >= 0);

let consoleErrors: unknown[][];
beforeEach(() => {
    consoleErrors = [];
    jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
        consoleErrors.push(args);
    });
});
afterEach(() => {
    jest.restoreAllMocks();
});

/** Validates a text and returns the crash reports: diagnostics from a throwing check or scope, console errors. */
async function crashesOn(text: string): Promise<string[]> {
    const document = await validatePidm(text);
    const crashes = (document.diagnostics ?? [])
        .map((d) => String(d.message))
        .filter((message) => message.startsWith('An error occurred'));
    return [...crashes, ...consoleErrors.map((args) => args.map(String).join(' '))];
}

describe('validation never crashes', () => {
    test('on the example cut short after every other token', async () => {
        for (const index of tokenIndexes.filter((_, i) => i % 2 === 0)) {
            const text = pieces.slice(0, index + 1).join('');
            expect({ text, crashes: await crashesOn(text) }).toEqual({ text, crashes: [] });
        }
    });

    test('on the example with one token removed, for every other token', async () => {
        for (const index of tokenIndexes.filter((_, i) => i % 2 === 1)) {
            const text = pieces.filter((_, i) => i !== index).join('');
            expect({ text, crashes: await crashesOn(text) }).toEqual({ text, crashes: [] });
        }
    });

    test('on random sequences of PIDM words and symbols', async () => {
        const vocabulary = [
            'entity',
            'A',
            'B',
            'id',
            'ref',
            'unique',
            'text',
            'int',
            'date',
            'k',
            'x',
            'b',
            'bs',
            '{',
            '}',
            '[',
            ']',
            '(',
            ')',
            '1',
            '*',
            '0..1',
            ':',
            ';',
            'query',
            'Q',
            'select',
            'from',
            'include',
            'as',
            'where',
            'and',
            'or',
            'not',
            'order',
            'by',
            'asc',
            'desc',
            '.',
            ',',
            '=',
            '<',
            '>=',
            '"?"',
            '"?p"',
            '-',
            '2',
            'true',
            '\n',
        ];
        const prefix = 'entity A { id k  x int  ref B[*] bs  ref B[1] b }\nentity B { id k  x date  ref A[0..1] a }\n';
        await fc.assert(
            fc.asyncProperty(fc.array(fc.constantFrom(...vocabulary), { maxLength: 40 }), async (words) => {
                const text = prefix + words.join(' ');
                expect({ text, crashes: await crashesOn(text) }).toEqual({ text, crashes: [] });
            }),
            { numRuns: 300, seed: 4 },
        );
    });

    test('on well-formed queries whose paths name anything, known or not', async () => {
        const name = fc.constantFrom('A', 'B', 'a', 'b', 'bs', 'BS', 'k', 'K', 'x', 'X', 'F', 'nope');
        const path = fc.array(name, { minLength: 1, maxLength: 4 }).map((names) => names.join('.'));
        const value = fc.constantFrom('"?"', '"?p"', '3', '-1.5', 'true', '"2024-01-05"', '"x"');
        const query = fc
            .tuple(
                fc.array(path, { minLength: 1, maxLength: 3 }),
                fc.constantFrom('A', 'B', 'a', 'C'),
                fc.array(fc.tuple(path, name), { maxLength: 3 }),
                fc.array(fc.tuple(path, value), { maxLength: 2 }),
                fc.array(path, { maxLength: 2 }),
            )
            .map(([select, from, includes, where, orderBy]) =>
                [
                    `query Q: select ${select.join(', ')} from ${from} as F`,
                    includes.length ? `include ${includes.map(([p, alias]) => `${p} as ${alias}`).join(', ')}` : '',
                    where.length ? `where ${where.map(([p, v]) => `${p} = ${v}`).join(' and ')}` : '',
                    orderBy.length ? `order by ${orderBy.join(', ')}` : '',
                ].join('\n'),
            );
        const entities =
            'entity A { id k  x int  ref B[*] bs  ref B[1] b }\nentity B { id k  x date  ref A[0..1] a  ref B[1] b }\n';
        await fc.assert(
            fc.asyncProperty(query, async (text) => {
                expect({ text, crashes: await crashesOn(entities + text) }).toEqual({ text, crashes: [] });
            }),
            { numRuns: 300, seed: 6 },
        );
    });
});
