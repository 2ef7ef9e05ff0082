/**
 * Names for PIDM nodes that have no `name` property: a FROM clause is known by its alias or its entity's
 * name, an include by its alias or its last step.
 */
import { DefaultNameProvider, GrammarUtils, type AstNode, type CstNode } from 'langium';
import { isFromClause, isInclude } from '../generated/ast.js';
import { includeAlias } from './pidm-semantics.js';

/** Gives FROM clauses and includes the names queries refer to them by. */
export class PidmNameProvider extends DefaultNameProvider {
    override getName(node: AstNode): string | undefined {
        if (isFromClause(node)) return node.alias ?? node.entity?.$refText;
        if (isInclude(node)) return includeAlias(node);
        return super.getName(node);
    }

    override getNameNode(node: AstNode): CstNode | undefined {
        if (isFromClause(node)) {
            return GrammarUtils.findNodeForProperty(node.$cstNode, node.alias ? 'alias' : 'entity');
        }
        if (isInclude(node)) {
            if (node.alias) return GrammarUtils.findNodeForProperty(node.$cstNode, 'alias');
            return node.path?.segments.at(-1)?.$cstNode;
        }
        return super.getNameNode(node);
    }
}
