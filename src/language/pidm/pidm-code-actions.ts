/**
 * PIDM quick fixes, keyed by the issue code in a diagnostic's `data`: a case slip is rewritten to the
 * declared spelling; an unknown or ambiguous name is replaced by one of the suggested names; a workload's size
 * outside its reference's cardinality becomes the nearest size it admits.
 */
import type { LangiumDocument, MaybePromise } from 'langium';
import type { CodeActionProvider } from 'langium/lsp';
import {
    CodeActionKind,
    type CodeAction,
    type CodeActionParams,
    type Command,
    type Diagnostic,
} from 'vscode-languageserver';
import { PidmIssueCodes } from './pidm-issue-codes.js';

/** Offers the quick fixes of PIDM diagnostics. */
export class PidmCodeActionProvider implements CodeActionProvider {
    getCodeActions(document: LangiumDocument, params: CodeActionParams): MaybePromise<Array<Command | CodeAction>> {
        const actions: CodeAction[] = [];
        for (const diagnostic of params.context.diagnostics) {
            actions.push(...this.fixesFor(diagnostic, document));
        }
        return actions;
    }

    private fixesFor(diagnostic: Diagnostic, document: LangiumDocument): CodeAction[] {
        const data = diagnostic.data as { code?: string; expected?: unknown; suggestions?: unknown } | undefined;
        switch (data?.code) {
            case PidmIssueCodes.CaseMismatch:
                return typeof data.expected === 'string'
                    ? [
                          this.replaceWith(
                              diagnostic,
                              document,
                              data.expected,
                              `Write '${data.expected}' as declared`,
                              true,
                          ),
                      ]
                    : [];
            case PidmIssueCodes.SizeOutsideCardinality:
                return typeof data.expected === 'string'
                    ? [
                          this.replaceWith(
                              diagnostic,
                              document,
                              data.expected,
                              `Write ${data.expected}, the nearest size the cardinality admits`,
                              true,
                          ),
                      ]
                    : [];
            case PidmIssueCodes.UnknownName:
            case PidmIssueCodes.AmbiguousName: {
                const suggestions = Array.isArray(data.suggestions)
                    ? data.suggestions.filter((s): s is string => typeof s === 'string')
                    : [];
                return suggestions.map((name, index) =>
                    this.replaceWith(
                        diagnostic,
                        document,
                        name,
                        `Replace with '${name}'`,
                        index === 0 && suggestions.length === 1,
                    ),
                );
            }
            default:
                return [];
        }
    }

    private replaceWith(
        diagnostic: Diagnostic,
        document: LangiumDocument,
        newText: string,
        title: string,
        isPreferred: boolean,
    ): CodeAction {
        return {
            title,
            kind: CodeActionKind.QuickFix,
            diagnostics: [diagnostic],
            isPreferred,
            edit: { changes: { [document.textDocument.uri]: [{ range: diagnostic.range, newText }] } },
        };
    }
}
