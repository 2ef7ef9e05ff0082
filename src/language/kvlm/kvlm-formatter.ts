/**
 * The KVLM formatter: lays a document out exactly as `printKvlm` writes it (one declaration per line,
 * one indent level per brace, a blank line before each collection and before the merge decisions),
 * while keeping comments. It decides the whitespace before every token from the token and the one
 * before it, because names may be spelled like keywords and so keywords cannot be looked up by text.
 */
import {
    AstUtils,
    CstUtils,
    GrammarAST,
    GrammarUtils,
    isLeafCstNode,
    type AstNode,
    type CstNode,
    type LangiumDocument,
} from 'langium';
import { AbstractFormatter, Formatting, type FormattingAction } from 'langium/lsp';
import type { FormattingOptions, Range, TextEdit } from 'vscode-languageserver';
import { isCollection, isKvlmModel, isServedQuery } from '../generated/ast.js';

/** Keywords that start a line, at the depth of the braces around them. */
const LINE_STARTERS = new Set([
    'source',
    'key',
    'from',
    'include',
    'field',
    'query',
    'param',
    'where',
    'order',
    'select',
    '}',
]);
/** Tokens written right after what precedes them. */
const TIGHT_BEFORE = new Set([',', ')', ':', '.']);
/** Tokens that what follows is written right after. */
const TIGHT_AFTER = new Set(['(', '.', '?', '-']);

/** The KVLM formatter registered in `KvlmModule`. */
export class KvlmFormatter extends AbstractFormatter {
    protected override format(node: AstNode): void {
        // Everything is decided once, from the root, over the document's tokens.
        if (!isKvlmModel(node) || !node.$cstNode) return;
        let previous: CstNode | undefined;
        for (const leaf of CstUtils.streamCst(node.$cstNode)) {
            if (!isLeafCstNode(leaf)) continue;
            const action = this.actionBefore(previous, leaf);
            if (action) this.getNodeFormatter(node).cst([leaf]).prepend(action);
            previous = leaf;
        }
    }

    /** The whitespace before `leaf`; undefined leaves it as it is (a comment's own line, for instance). */
    private actionBefore(previous: CstNode | undefined, leaf: CstNode): FormattingAction | undefined {
        const depth = braceDepth(leaf);
        if (leaf.hidden) {
            // A comment on its own line is indented like the code around it; one after code stays put.
            return previous && previous.range.end.line === leaf.range.start.line
                ? undefined
                : { options: {}, moves: [{ tabs: depth }] };
        }
        if (!previous) return Formatting.noSpace();
        if (previous.hidden)
            return isLineComment(previous) || startsLine(leaf) ? lines(1, depth) : Formatting.oneSpace();
        const text = structuralKeyword(leaf);
        if (text === 'collection') return lines(2, 0);
        if (text === 'merge') {
            const model = leaf.astNode;
            if (isKvlmModel(model)) return lines(1, 0);
            const decisions = (model.$container as { decisions?: AstNode[] } | undefined)?.decisions ?? [];
            return lines(decisions[0] === model ? 2 : 1, 0);
        }
        if (text !== undefined && LINE_STARTERS.has(text)) return lines(1, depth);
        if (TIGHT_BEFORE.has(leaf.text)) return Formatting.noSpace();
        if (leaf.text === '(' && leaf.astNode.$type !== 'KGroupExpression') return Formatting.noSpace();
        if (TIGHT_AFTER.has(previous.text) && structuralKeyword(previous) !== undefined) return Formatting.noSpace();
        return Formatting.oneSpace();
    }

    /** Adds the single final newline the printer writes; Langium's formatter leaves the document's end alone. */
    protected override doDocumentFormat(
        document: LangiumDocument,
        options: FormattingOptions,
        range?: Range,
    ): TextEdit[] {
        const edits = super.doDocumentFormat(document, options, range);
        const root = document.parseResult.value.$cstNode;
        if (range || !root) return edits;
        let end = 0;
        for (const node of CstUtils.streamCst(root)) {
            if (isLeafCstNode(node)) end = Math.max(end, node.end);
        }
        const text = document.textDocument.getText();
        if (end > 0 && text.slice(end) !== '\n') {
            edits.push({
                range: {
                    start: document.textDocument.positionAt(end),
                    end: document.textDocument.positionAt(text.length),
                },
                newText: '\n',
            });
        }
        return edits;
    }
}

function lines(count: number, depth: number): FormattingAction {
    return { options: {}, moves: [{ lines: count, tabs: depth }] };
}

function isLineComment(node: CstNode): boolean {
    return node.hidden && node.text.startsWith('//');
}

function startsLine(leaf: CstNode): boolean {
    const text = structuralKeyword(leaf);
    return text !== undefined && (LINE_STARTERS.has(text) || text === 'collection' || text === 'merge');
}

/**
 * The keyword a token is, when it is one of the grammar's own keywords; a name or a type spelled like a
 * keyword (parsed by a data type rule such as `KName`) is not.
 */
function structuralKeyword(leaf: CstNode): string | undefined {
    const source = leaf.grammarSource;
    if (!GrammarAST.isKeyword(source)) return undefined;
    const rule = AstUtils.getContainerOfType(source, GrammarAST.isParserRule);
    if (rule && GrammarUtils.isDataTypeRule(rule)) return undefined;
    return source.value;
}

/** How many braces enclose a token: a collection's and a query's own `{ … }` count for what is inside them. */
function braceDepth(leaf: CstNode): number {
    let depth = 0;
    for (let node: AstNode | undefined = leaf.astNode; node; node = node.$container) {
        if (isCollection(node) || isServedQuery(node)) depth += 1;
    }
    const own = leaf.astNode;
    if ((isCollection(own) || isServedQuery(own)) && !insideOwnBraces(leaf)) depth -= 1;
    return depth;
}

/** True when the token lies between its node's `{` and `}` (so not the header nor the closing brace). */
function insideOwnBraces(leaf: CstNode): boolean {
    const text = structuralKeyword(leaf);
    if (text === '}') return false;
    const open = GrammarUtils.findNodeForKeyword(leaf.astNode.$cstNode, '{');
    return open !== undefined && leaf.offset > open.offset;
}
