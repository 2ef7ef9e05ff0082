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
import {
    GrammarAST,
    isLinkingError,
    isReference,
    type AstNode,
    type AstNodeDescription,
    type CstNode,
    type Grammar,
    type LinkingError,
} from 'langium';
import type { Position } from 'vscode-languageserver-types';
import { CstStandIn } from './cst-stand-in.js';
import type { ReferenceResolver } from './langium-internals.js';

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

/** The grammar elements the stand-ins name as their grammar sources, and the codes of the properties marked. */
export class BatchGrammar {
    /** A property's assignment's terminal (any rule's: `findNodeForProperty` reads only the feature). */
    private readonly terminals = new Map<string, GrammarAST.AbstractElement>();
    private readonly keywords = new Map<string, GrammarAST.Keyword>();
    /** The features assigned, by mark code (`KEYWORD_MARK` is 0). */
    private readonly features: string[] = [''];
    /** The features an action assigns (`left=current`): Langium's CST does not find their node from the node. */
    private readonly actionFeatures = new Set<string>();

    constructor(grammar: Grammar, imported: readonly Grammar[] = []) {
        for (const g of [grammar, ...imported]) {
            for (const rule of g.rules) {
                if (!GrammarAST.isParserRule(rule)) continue;
                const visit = (element: GrammarAST.AbstractElement | undefined): void => {
                    if (!element) return;
                    if (GrammarAST.isAssignment(element)) {
                        if (!this.terminals.has(element.feature)) this.terminals.set(element.feature, element.terminal);
                        if (!this.features.includes(element.feature)) this.features.push(element.feature);
                        visit(element.terminal);
                    } else if (GrammarAST.isAction(element)) {
                        if (element.feature) this.actionFeatures.add(element.feature);
                    } else if (GrammarAST.isKeyword(element)) {
                        if (!this.keywords.has(element.value)) this.keywords.set(element.value, element);
                    } else if (
                        GrammarAST.isGroup(element) ||
                        GrammarAST.isAlternatives(element) ||
                        GrammarAST.isUnorderedGroup(element)
                    ) {
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

    /** The mark code of an assigned property (`BatchCstNode`'s marks). */
    featureCode(feature: string): number {
        const code = this.features.indexOf(feature);
        if (code < 0) throw new Error(`No assignment of ${feature} in the grammar`);
        return code;
    }

    /** The property of a mark code. */
    feature(code: number): string {
        return this.features[code];
    }

    /** Whether the property's node is found from its node (not an action's `left=current`). */
    isFound(feature: string): boolean {
        return !this.actionFeatures.has(feature);
    }
}

/** The mark code of an unassigned keyword that starts or ends its node (what the lean CST keeps of a node's keywords). */
export const KEYWORD_MARK = 0;

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
function tokenNode(
    source: BatchSource,
    owner: AstNode,
    offset: number,
    length: number,
    terminal: GrammarAST.AbstractElement | undefined,
): BatchLeaf {
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
        /** `[code, offset, length, …]` of the properties written as tokens and of the leading and trailing keywords (`BatchGrammar.featureCode`, `KEYWORD_MARK`). */
        private readonly marks: readonly number[] | undefined,
    ) {
        super(source, astNode, offset, length);
    }

    /** The grammar's assignment of the property the node is in (none for the root and a `left=current`). */
    get grammarSource(): GrammarAST.AbstractElement | undefined {
        const property = this.astNode.$containerProperty;
        return property && this.source.grammar.isFound(property) ? this.source.grammar.terminal(property) : undefined;
    }

    /** The children a CST walk finds (see the file comment). */
    get content(): (BatchLeaf | CstNode)[] | undefined {
        const node = this.astNode;
        const source = this.source;
        const grammar = source.grammar;
        const children: (BatchLeaf | CstNode)[] = [];
        const marks = this.marks;
        if (marks) {
            for (let i = 0; i < marks.length; i += 3) {
                const [code, offset, length] = [marks[i], marks[i + 1], marks[i + 2]];
                if (code === KEYWORD_MARK)
                    children.push(
                        new BatchLeaf(
                            source,
                            node,
                            offset,
                            length,
                            grammar.keyword(source.text.substring(offset, offset + length)),
                        ),
                    );
                else children.push(tokenNode(source, node, offset, length, grammar.terminal(grammar.feature(code))));
            }
        }
        const record = node as unknown as Record<string, unknown>;
        for (const key of Object.keys(record)) {
            if (key.charCodeAt(0) === 36 /* $ */) continue;
            const value = record[key];
            for (const item of Array.isArray(value) ? value : [value]) {
                if (isReference(item)) {
                    const at = item.$refNode;
                    if (at) children.push(tokenNode(source, node, at.offset, at.length, grammar.terminal(key)));
                } else if (item && typeof item === 'object' && typeof (item as AstNode).$type === 'string') {
                    const child = (item as AstNode).$cstNode;
                    if (child) children.push(child);
                }
            }
        }
        children.sort((a, b) => a.offset - b.offset);
        return children;
    }
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

    protected abstract get resolver(): ReferenceResolver;
    /** The step's property (`element`): one subclass per property, so that no step holds it. */
    protected abstract get property(): string;

    /** None for a step named by an identifier, as in the lean CST; a keyword spelling keeps the rule's node around its leaf. */
    override get content(): (BatchLeaf | CstNode)[] | undefined {
        const grammar = this.source.grammar;
        if (!grammar.keyword(this.text)) return undefined;
        return [tokenNode(this.source, this.astNode, this.offset, this.length, grammar.terminal(this.property))];
    }

    get $refNode(): CstNode {
        return this as unknown as CstNode;
    }

    get ref(): AstNode | undefined {
        return this.resolver.resolveReference(this, this.astNode, this.property);
    }

    get $nodeDescription(): AstNodeDescription | undefined {
        return this._nodeDescription;
    }

    get error(): LinkingError | undefined {
        return isLinkingError(this._ref) ? this._ref : undefined;
    }
}

/** A reference's node made by the batch parser: the name token (a path step's is the step's own node). */
export function referenceNode(source: BatchSource, owner: AstNode, offset: number, length: number): CstNode {
    return new BatchLeaf(source, owner, offset, length, undefined) as unknown as CstNode;
}
