/**
 * PIDM rename. Langium renames the declaration and every reference to it; PIDM also has names that are
 * borrowed, not declared: a FROM clause without `AS` is known by its entity's name, and an include without
 * `AS` by its last step's name. Paths written through such a borrowed name must change too, or renaming
 * `Passenger` would leave `Passenger.flights` dangling.
 */
import { AstUtils, CstUtils, type AstNode, type LangiumDocument } from 'langium';
import { DefaultRenameProvider, type LangiumServices } from 'langium/lsp';
import type { RenameParams, TextEdit, WorkspaceEdit } from 'vscode-languageserver';
import { TextEdit as TextEdits } from 'vscode-languageserver';
import { isFromClause, isInclude, isPidmModel } from '../generated/ast.js';

/** Renames declarations together with the aliases that borrow their names. */
export class PidmRenameProvider extends DefaultRenameProvider {
    private readonly documents: LangiumServices['shared']['workspace']['LangiumDocuments'];

    constructor(services: LangiumServices) {
        super(services);
        this.documents = services.shared.workspace.LangiumDocuments;
    }

    override async rename(document: LangiumDocument, params: RenameParams): Promise<WorkspaceEdit | undefined> {
        const root = document.parseResult.value.$cstNode;
        if (!root) return undefined;
        const offset = document.textDocument.offsetAt(params.position);
        const leaf = CstUtils.findDeclarationNodeAtOffset(root, offset, this.grammarConfig.nameRegexp);
        if (!leaf) return undefined;
        const declarations = this.references.findDeclarations(leaf);
        if (declarations.length === 0) return undefined;
        const targets = this.withBorrowers(lender(declarations[0]));
        const changes: Record<string, TextEdit[]> = {};
        const seen = new Set<string>();
        for (const target of targets) {
            for (const reference of this.references.findReferences(target, { includeDeclaration: true })) {
                const uri = reference.sourceUri.toString();
                const range = reference.segment.range;
                const key = `${uri}:${range.start.line}:${range.start.character}`;
                if (seen.has(key)) continue;
                seen.add(key);
                (changes[uri] ??= []).push(TextEdits.replace(range, params.newName));
            }
        }
        return { changes };
    }

    /** The target and every FROM clause or include that is known by the target's name. */
    private withBorrowers(target: AstNode): AstNode[] {
        const result = [target];
        for (let i = 0; i < result.length; i++) {
            const current = result[i];
            for (const document of this.documents.all) {
                const model = document.parseResult.value;
                if (!isPidmModel(model)) continue;
                for (const node of AstUtils.streamAllContents(model)) {
                    if (result.includes(node)) continue;
                    if (isFromClause(node) && !node.alias && node.entity.ref === current) result.push(node);
                    if (isInclude(node) && !node.alias && node.path.segments.at(-1)?.element.ref === current)
                        result.push(node);
                }
            }
        }
        return result;
    }
}

/** The declaration a borrowed name comes from: renaming `Passenger` in `Passenger.flights` renames the entity. */
function lender(node: AstNode): AstNode {
    let current = node;
    for (let guard = 0; guard < 100; guard++) {
        if (isFromClause(current) && !current.alias && current.entity.ref) current = current.entity.ref;
        else if (isInclude(current) && !current.alias && current.path.segments.at(-1)?.element.ref) {
            current = current.path.segments.at(-1)!.element.ref!;
        } else break;
    }
    return current;
}
