import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { formatPidm } from './pidm-test-helpers.js';

const example = readFileSync('examples/airflights/airflights.pidm', 'utf8');
const formattedExample = readFileSync('test/language/pidm/fixtures/airflights.formatted.pidm', 'utf8');

describe('the PIDM formatter', () => {
    test('formats the airflights example into the expected text', async () => {
        expect(await formatPidm(example)).toBe(formattedExample);
    });

    test('is idempotent on the example', async () => {
        expect(await formatPidm(formattedExample)).toBe(formattedExample);
    });

    test('lays out a cramped model: one member per line indented by 2, one clause per line, spaces after commas', async () => {
        const messy = [
            'entity   A{id   k    int   unique',
            'text name  url:string ref  B [ 0 .. 1 ]  b;',
            '   ref B(1) c }',
            'entity B { id x }',
            'query q : select   A.name as N ,b.x from A as X include X.b as BB,X.c where not( name="?" OR url <> \'x\') AND b.x>-3 order  by name desc,url',
            '',
        ].join('\n');
        const expected = [
            'entity A {',
            '  id k int unique',
            '  text name',
            '  url: string',
            '  ref B[0..1] b;',
            '  ref B(1) c',
            '}',
            '',
            'entity B {',
            '  id x',
            '}',
            '',
            'query q:',
            'select A.name as N, b.x',
            'from A as X',
            'include X.b as BB, X.c',
            'where not (name = "?" OR url <> \'x\') AND b.x > -3',
            'order by name desc, url',
            '',
        ].join('\n');
        const formatted = await formatPidm(messy);
        expect(formatted).toBe(expected);
        expect(await formatPidm(formatted)).toBe(expected);
    });

    test('keeps a comment attached to the declaration below it', async () => {
        const text = 'entity A { id k }\n// the queries\nquery q: select k from A\n';
        expect(await formatPidm(text)).toBe('entity A {\n  id k\n}\n// the queries\nquery q:\nselect k\nfrom A\n');
    });

    test('keeps the identifier and the type-first attributes below it apart', async () => {
        const text = 'entity A {\n    id code\n    text name\n}\n';
        expect(await formatPidm(text)).toBe('entity A {\n  id code\n  text name\n}\n');
    });

    test('leaves a document with a syntax error as it is', async () => {
        const broken = 'entity   A {  id k  name }\nquery q:select k from   A\n';
        expect(await formatPidm(broken)).toBe(broken);
    });
});
