/**
 * Lets go of a validated document's concrete syntax tree in a batch run that goes on working with the
 * model (`transform`, `generate`). Once a document is linked and validated nothing walks its CST any
 * more; what is still read is where a node or a reference is (`$cstNode.range`, `.offset`, `.text`: query
 * sites, the cardinality's spelling in the report). Each node's `$cstNode` becomes a small stand-in that
 * answers those from the document's text, each reference's `$refNode` is dropped; the tree's leaves
 * and composites (a third of a loaded PIDM model's heap on the grid files, the stand-ins' cost deducted) become garbage before
 * the transformation allocates its own model. Never for an editor's documents: they keep their CST.
 */
import { isAstNode, isReference, type AstNode, type CstNode, type LangiumDocument } from 'langium';
import { BatchCstNode } from './batch-cst.js';
import { CstStandIn, type StandInText } from './cst-stand-in.js';

/**
 * A released CST node: the same offset, length, end, range and text as the node it replaces; no children,
 * no grammar source (so `GrammarUtils.findNodeForProperty` finds nothing in it, and callers fall back to
 * the node's own range).
 */
export class ReleasedCstNode extends CstStandIn {
    get grammarSource(): undefined {
        return undefined;
    }
}

/** Replaces the document's CST by stand-ins (see the file comment). Returns the number of nodes it replaced. */
export function releaseSyntaxTree(document: LangiumDocument): number {
    const source = document.textDocument as StandInText;
    let released = 0;
    const stand = (owner: AstNode, cst: CstNode | undefined): CstNode | undefined => {
        // The batch parser's stand-ins (batch-cst.ts) are already small.
        if (!cst || cst instanceof ReleasedCstNode || cst instanceof BatchCstNode) return cst;
        released++;
        return new ReleasedCstNode(source, owner, cst.offset, cst.length) as unknown as CstNode;
    };
    const releaseReference = (owner: AstNode, value: unknown): void => {
        const reference = value as { $refNode?: CstNode };
        // Compact batch references and Langium's both keep the leaf in a writable `$refNode` field. Only
        // the linking diagnostics read it, and they are made: it goes (a stand-in for each of the millions
        // of references would cost a third of what the release saves).
        if (Object.getOwnPropertyDescriptor(reference, '$refNode')?.writable && reference.$refNode) {
            reference.$refNode = undefined;
            released++;
        }
    };
    const stack: AstNode[] = [document.parseResult.value];
    while (stack.length > 0) {
        const node = stack.pop()!;
        (node as { $cstNode?: CstNode }).$cstNode = stand(node, node.$cstNode);
        const record = node as unknown as Record<string, unknown>;
        for (const key in record) {
            if (key.charCodeAt(0) === 36 /* $ */) continue;
            const value = record[key];
            if (Array.isArray(value)) {
                for (const item of value) {
                    if (isAstNode(item)) stack.push(item);
                    else if (isReference(item)) releaseReference(node, item);
                }
            } else if (isAstNode(value)) {
                stack.push(value);
            } else if (isReference(value)) {
                releaseReference(node, value);
            }
        }
    }
    return released;
}
