/**
 * Shared helpers of the PIDM language tests: one services instance per test file, a fresh workspace per
 * model (so that one test's entities never resolve another's names), and diagnostics as readable
 * `line:col severity code` strings.
 */
import { TextDocument, URI, type LangiumDocument } from 'langium';
import { clearDocuments } from 'langium/test';
import type { Diagnostic } from 'vscode-languageserver';
import { createKvmodServices, type KvmodServices } from '../../../src/language/kvmod-module.js';
import type { PidmModel } from '../../../src/language/generated/ast.js';

/** The services all PIDM tests of a file share. */
export const services: KvmodServices = createKvmodServices();

const SEVERITY = ['', 'error', 'warning', 'info', 'hint'] as const;

let counter = 0;

/** Loads texts as one fresh workspace (the previous one is cleared), builds and validates them. */
export async function loadPidm(...texts: string[]): Promise<LangiumDocument<PidmModel>[]> {
    await clearDocuments(services.shared);
    const documents = texts.map((text) =>
        services.shared.workspace.LangiumDocumentFactory.fromString<PidmModel>(
            text,
            URI.file(`/test/model-${++counter}.pidm`),
        ),
    );
    for (const document of documents) services.shared.workspace.LangiumDocuments.addDocument(document);
    await services.shared.workspace.DocumentBuilder.build(documents, { validation: true });
    return documents;
}

/** Loads one model and returns its document. */
export async function validatePidm(text: string): Promise<LangiumDocument<PidmModel>> {
    return (await loadPidm(text))[0];
}

/** The issue code of a diagnostic: PIDM's `code`, or the `data.code` Langium gives parse errors. */
export function codeOf(diagnostic: Diagnostic): string {
    return String(diagnostic.code ?? (diagnostic.data as { code?: string } | undefined)?.code ?? '');
}

/** Diagnostics as `line:col severity code` (1-based), in document order. */
export function issueList(document: LangiumDocument): string[] {
    return [...(document.diagnostics ?? [])]
        .sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character)
        .map(
            (d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${SEVERITY[d.severity ?? 1]} ${codeOf(d)}`,
        );
}

/** The diagnostics with a given code. */
export function issuesWithCode(document: LangiumDocument, code: string): Diagnostic[] {
    return (document.diagnostics ?? []).filter((d) => codeOf(d) === code);
}

/** The diagnostics that are errors. */
export function errors(document: LangiumDocument): Diagnostic[] {
    return (document.diagnostics ?? []).filter((d) => d.severity === 1);
}

/** The text a diagnostic covers. */
export function coveredText(document: LangiumDocument, diagnostic: Diagnostic): string {
    return document.textDocument.getText(diagnostic.range);
}

/** Formats a text with the PIDM formatter (2-space indentation) and returns the result. */
export async function formatPidm(text: string): Promise<string> {
    const [document] = await loadPidm(text);
    const edits = await services.Pidm.lsp.Formatter!.formatDocument(document, {
        options: { tabSize: 2, insertSpaces: true },
        textDocument: { uri: document.uri.toString() },
    });
    return TextDocument.applyEdits(document.textDocument, edits);
}
