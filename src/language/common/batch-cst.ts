/**
 * Position stand-ins for the CST of a PIDM document parsed by the batch parser (pidm/pidm-batch-parser.ts).
 * A batch run reads a document's CST only for positions and texts: a node's range and text, a reference's
 * node, the node of a property or keyword a diagnostic points at (`findNodeForProperty`,
 * `findNodeForKeyword`), a name's node for the scopes. The lean CST (lean-cst.ts) keeps exactly what those
 * need; the stand-ins answer the same questions with one small object per AST node:
 *
 * - `offset`, `length`, `end`, `range`, `text`, `astNode` as the node's CST node;
 * - `content` (made when asked): the nodes of the properties written as tokens (`marks`: name, type,
 *   alias, operator, value, …), of the references (`$refNode`), of the child AST nodes, and of the keyword
 *   that starts or ends the node (`entity`, `id`, `}` — what the lean CST keeps of a node's keywords), in
 *   text order, each with a grammar source in the grammar's assignment of its property, so that
 *   `findNodeForProperty` and `findNodeForKeyword` walk them as Langium's CST. A token that is a keyword
 *   (`date` as a name, `desc`, `and`) is, as in Langium's CST, a rule's node holding the keyword's leaf.
 *
 * Positions come from the text: lines are found once per document (a table of line starts).
 */
import { GrammarAST, isLinkingError, isReference, type AstNode, type AstNodeDescription, type CstNode, type Grammar, type LinkingError } from 'langium';
import type { Position } from 'vscode-languageserver-types';
import { CstStandIn } from './cst-stand-in.js';

/** The document text a tree's stand-ins read, with its line starts (made on first use) and the grammar's elements. */
export class BatchSource {
    private lineStarts: number[] | undefined;

    constructor(
        readonly text: string,
        readonly grammar: BatchGrammar,
    ) {}

    /** The text, as `TextDocument.getText` (what `CstStandIn` reads). */
    getText(): string {
        return this.text;
    }

    /** The position of an offset, as `TextDocument.positionAt` (line breaks `\n`, `\r\n`, `\r`). */
    positionAt(offset: number): Position {
        const starts = (this.lineStarts ??= lineStartsOf(this.text));
        offset = Math.max(Math.min(offset, this.text.length), 0);
        let low = 0;
        let high = starts.length;
        while (low < high) {
            const middle = (low + high) >>> 1;
            if (starts[middle] > offset) high = middle;
            else low = middle + 1;
        }
        const line = low - 1;
        return { line, character: offset - starts[line] };
    }
}

function lineStartsOf(text: string): number[] {
    const starts = [0];
    for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 13 /* \r */ || c === 10 /* \n */) {
            if (c === 13 && i + 1 < text.length && text.charCodeAt(i + 1) === 10) i++;
            starts.push(i + 1);
        }
    }
    return starts;
}

/** The grammar elements the stand-ins name as their grammar sources. */
export class BatchGrammar {
    /** A property's assignment's terminal (any rule's: `findNodeForProperty` reads only the feature). */
    private readonly terminals = new Map<string, GrammarAST.AbstractElement>();
    private readonly keywords = new Map<string, GrammarAST.Keyword>();

    constructor(grammar: Grammar, imported: readonly Grammar[] = []) {
        for (const g of [grammar, ...imported]) {
            for (const rule of g.rules) {
                if (!GrammarAST.isParserRule(rule)) continue;
                const visit = (element: GrammarAST.AbstractElement | undefined): void => {
                    if (!element) return;
                    if (GrammarAST.isAssignment(element)) {
                        if (!this.terminals.has(element.feature)) this.terminals.set(element.feature, element.terminal);
                        visit(element.terminal);
                    } else if (GrammarAST.isKeyword(element)) {
                        if (!this.keywords.has(element.value)) this.keywords.set(element.value, element);
                    } else if (GrammarAST.isGroup(element) || GrammarAST.isAlternatives(element) || GrammarAST.isUnorderedGroup(element)) {
                        for (const child of element.elements) visit(child);
                    }
                };
                visit(rule.definition);
            }
        }
    }

    terminal(feature: string): GrammarAST.AbstractElement | undefined {
        return this.terminals.get(feature);
    }

    /** The grammar's keyword spelled `word` in any case, if there is one. */
    keyword(word: string): GrammarAST.Keyword | undefined {
        return this.keywords.get(word.toLowerCase());
    }
}

/** The features the batch parser records tokens of (`marks`), by number. */
export const MARK_FEATURES = ['name', 'type', 'unique', 'many', 'lower', 'upper', 'upperMany', 'alias', 'direction', 'operator', 'value', 'negative'] as const;
export type MarkFeature = (typeof MARK_FEATURES)[number];
export const MarkCode: Record<MarkFeature, number> = Object.fromEntries(MARK_FEATURES.map((name, index) => [name, index])) as Record<MarkFeature, number>;

/** The unassigned keyword a node of a type starts with, and those it may end with (what the lean CST keeps). */
const LEADING: Record<string, readonly string[]> = {
    Entity: ['entity'],
    IdAttribute: ['id'],
    Reference: ['ref'],
    Query: ['query'],
    NotExpression: ['not'],
    GroupExpression: ['('],
    Cardinality: ['[', '('],
};
const TRAILING: Record<string, readonly string[]> = {
    Entity: ['}'],
    Attribute: [';'],
    IdAttribute: [';'],
    Reference: [';'],
    GroupExpression: [')'],
    Cardinality: [']', ')'],
};

/** The properties whose node Langium's CST does not find from the node (an action's `left=current`). */
const UNFOUND = new Set(['left']);

/** A token's node: a leaf, or for a keyword written where a rule's value is (`date` as a name) the rule's node holding the keyword's leaf. */
export class BatchLeaf extends CstStandIn<BatchSource> {
    content: BatchLeaf[] | undefined = undefined;

    constructor(
        source: BatchSource,
        astNode: AstNode,
        offset: number,
        length: number,
        readonly grammarSource: GrammarAST.AbstractElement | undefined,
    ) {
        super(source, astNode, offset, length);
    }
}

/** A token's node for `feature` (see `BatchLeaf`): a keyword's token gets the rule's node around its leaf unless the assignment is the keyword. */
function tokenNode(source: BatchSource, owner: AstNode, offset: number, length: number, terminal: GrammarAST.AbstractElement | undefined): BatchLeaf {
    const node = new BatchLeaf(source, owner, offset, length, terminal);
    if (terminal && !GrammarAST.isKeyword(terminal)) {
        const keyword = source.grammar.keyword(source.text.substring(offset, offset + length));
        if (keyword) node.content = [new BatchLeaf(source, owner, offset, length, keyword)];
    }
    return node;
}

/** The CST stand-in of one AST node (see the file comment). */
export class BatchCstNode extends CstStandIn<BatchSource> {
    constructor(
        source: BatchSource,
        astNode: AstNode,
        offset: number,
        length: number,
        /** `[feature code, offset, length, …]` of the properties written as tokens (`MARK_FEATURES`). */
        private readonly marks: readonly number[] | undefined,
    ) {
        super(source, astNode, offset, length);
    }

    /** The grammar's assignment of the property the node is in (none for the root and a `left=current`). */
    get grammarSource(): GrammarAST.AbstractElement | undefined {
        const property = this.astNode.$containerProperty;
        return property && !UNFOUND.has(property) ? this.source.grammar.terminal(property) : undefined;
    }

    /** The children a CST walk finds (see the file comment); none for a path step named by an identifier, as in the lean CST. */
    get content(): (BatchLeaf | CstNode)[] | undefined {
        const node = this.astNode;
        const source = this.source;
        const children: (BatchLeaf | CstNode)[] = [];
        if (node.$type === 'Segment') {
            // The step's node is its reference's node; a keyword spelling keeps the rule's node around its leaf.
            const keyword = source.grammar.keyword(this.text);
            if (!keyword) return undefined;
            return [tokenNode(source, node, this.offset, this.length, source.grammar.terminal('element'))];
        }
        const marks = this.marks;
        if (marks) {
            for (let i = 0; i < marks.length; i += 3) {
                const feature = MARK_FEATURES[marks[i]];
                children.push(tokenNode(source, node, marks[i + 1], marks[i + 2], source.grammar.terminal(feature)));
            }
        }
        const record = node as unknown as Record<string, unknown>;
        for (const key of Object.keys(record)) {
            if (key.charCodeAt(0) === 36 /* $ */) continue;
            const value = record[key];
            for (const item of Array.isArray(value) ? value : [value]) {
                if (isReference(item)) {
                    const at = item.$refNode;
                    if (at) children.push(tokenNode(source, node, at.offset, at.length, source.grammar.terminal(key)));
                } else if (item && typeof item === 'object' && typeof (item as AstNode).$type === 'string') {
                    const child = (item as AstNode).$cstNode;
                    if (child) children.push(child);
                }
            }
        }
        const text = source.text;
        for (const word of LEADING[node.$type] ?? []) {
            if (text.substring(this.offset, this.offset + word.length).toLowerCase() === word && isWordEnd(text, this.offset + word.length, word)) {
                children.push(new BatchLeaf(source, node, this.offset, word.length, source.grammar.keyword(word)));
                break;
            }
        }
        for (const word of TRAILING[node.$type] ?? []) {
            if (this.length > word.length && text.substring(this.end - word.length, this.end) === word) {
                children.push(new BatchLeaf(source, node, this.end - word.length, word.length, source.grammar.keyword(word)));
                break;
            }
        }
        children.sort((a, b) => a.offset - b.offset);
        return children;
    }
}

/** What resolves a reference when its target is read (`DefaultLinker.referenceResolver`, internal in Langium 4.4). */
export interface StepReferenceResolver {
    resolveReference(reference: object, node: AstNode, property: string): AstNode | undefined;
}

/**
 * A path step's CST stand-in that is also the step's reference (`Segment.element`): the step's node is its
 * reference's node (`$refNode` is the object itself), so one object instead of two for each of the millions of
 * steps of a large model. The reference's fields and getters are those of Langium's reference
 * (`DefaultReferenceImpl`); the resolver comes from the subclass the batch linker makes (ast-traversal.ts).
 */
export abstract class BatchStepNode extends BatchCstNode {
    _ref: unknown = undefined;
    _nodeDescription: AstNodeDescription | undefined = undefined;

    constructor(
        source: BatchSource,
        astNode: AstNode,
        offset: number,
        length: number,
        readonly $refText: string,
    ) {
        super(source, astNode, offset, length, undefined);
    }

    protected abstract get resolver(): StepReferenceResolver;

    get $refNode(): CstNode {
        return this as unknown as CstNode;
    }

    get ref(): AstNode | undefined {
        return this.resolver.resolveReference(this, this.astNode, 'element');
    }

    get $nodeDescription(): AstNodeDescription | undefined {
        return this._nodeDescription;
    }

    get error(): LinkingError | undefined {
        return isLinkingError(this._ref) ? this._ref : undefined;
    }
}

/** Whether a leading keyword written as a word ends at `at` (`entity` in `entity E`, not in `entityX`). */
function isWordEnd(text: string, at: number, word: string): boolean {
    if (!/^\w/.test(word)) return true;
    return !/\w/.test(text.charAt(at));
}

/** A reference's node made by the batch parser: the name token (a path step's is the step's own node). */
export function referenceNode(source: BatchSource, owner: AstNode, offset: number, length: number): CstNode {
    return new BatchLeaf(source, owner, offset, length, undefined) as unknown as CstNode;
}
