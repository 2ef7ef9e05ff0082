/**
 * Shared helpers of the KVLM tests: one set of services, parsing with validation, the fixture.
 */
import { readFileSync } from 'node:fs';
import type { LangiumDocument } from 'langium';
import { parseHelper } from 'langium/test';
import type { Diagnostic } from 'vscode-languageserver-types';
import type { KvlmModel } from '../../../src/language/generated/ast.js';
import { createKvmodServices } from '../../../src/language/kvmod-module.js';

/** The services every KVLM test uses (created once: Langium services are expensive). */
export const services = createKvmodServices();

const parse = parseHelper<KvlmModel>(services.Kvlm);

let counter = 0;

/** Parses, links and validates a KVLM text in its own document. */
export async function parseKvlm(text: string): Promise<LangiumDocument<KvlmModel>> {
    counter += 1;
    return parse(text, { validation: true, documentUri: `file:///kvlm-test-${counter}.kvlm` });
}

/** Parses a KVLM text and fails on lexer or parser errors (the text under test must be syntactically valid). */
export async function parseValidKvlmSyntax(text: string): Promise<KvlmModel> {
    const document = await parseKvlm(text);
    const errors = [
        ...document.parseResult.lexerErrors.map((e) => e.message),
        ...document.parseResult.parserErrors.map((e) => e.message),
    ];
    if (errors.length > 0) {
        throw new Error(`syntax errors:\n${errors.join('\n')}\nin:\n${text}`);
    }
    return document.parseResult.value;
}

/** The diagnostics of a document as `severity code message` tuples, easy to assert on. */
export function issues(
    document: LangiumDocument,
): { severity: 'error' | 'warning' | 'info' | 'hint'; code: string; message: string; line: number }[] {
    const names = ['error', 'error', 'warning', 'info', 'hint'] as const;
    return (document.diagnostics ?? []).map((d: Diagnostic) => ({
        severity: names[d.severity ?? 1],
        code: String(d.code ?? (d.data as { code?: string } | undefined)?.code ?? ''),
        message: typeof d.message === 'string' ? d.message : d.message.value,
        line: d.range.start.line + 1,
    }));
}

/** The text of the KVLM contract fixture. */
export const fixtureText = readFileSync(new URL('../../fixtures/kvlm/airflights-q4q5.kvlm', import.meta.url), 'utf8');

/** The fixture as the printer writes it: the same text without its leading comment line. */
export const fixtureCanonical = fixtureText.replace(/^\/\/[^\n]*\n/, '');
