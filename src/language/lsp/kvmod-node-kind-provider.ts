/**
 * Symbol and completion kinds for both languages, so the outline shows entities and collections as
 * classes with their members as fields, and queries as functions, instead of Langium's all-fields default.
 */
import type { AstNode, AstNodeDescription } from 'langium';
import { CompletionItemKind, SymbolKind } from 'vscode-languageserver';
import { DefaultNodeKindProvider } from 'langium/lsp';

const SYMBOL_KINDS: Record<string, SymbolKind> = {
    Entity: SymbolKind.Class,
    Attribute: SymbolKind.Field,
    IdAttribute: SymbolKind.Key,
    Reference: SymbolKind.Property,
    Query: SymbolKind.Function,
    FromClause: SymbolKind.Variable,
    Include: SymbolKind.Variable,
    KvlmModel: SymbolKind.Module,
    Collection: SymbolKind.Class,
    RootNode: SymbolKind.Variable,
    PathNode: SymbolKind.Variable,
    Field: SymbolKind.Field,
    ServedQuery: SymbolKind.Function,
    Parameter: SymbolKind.TypeParameter,
};

const COMPLETION_KINDS: Record<string, CompletionItemKind> = {
    Entity: CompletionItemKind.Class,
    Attribute: CompletionItemKind.Field,
    IdAttribute: CompletionItemKind.Field,
    Reference: CompletionItemKind.Reference,
    Query: CompletionItemKind.Function,
    FromClause: CompletionItemKind.Variable,
    Include: CompletionItemKind.Variable,
    Collection: CompletionItemKind.Class,
    RootNode: CompletionItemKind.Variable,
    PathNode: CompletionItemKind.Variable,
    Field: CompletionItemKind.Field,
    ServedQuery: CompletionItemKind.Function,
    Parameter: CompletionItemKind.TypeParameter,
};

/** Maps PIDM and KVLM node types to LSP symbol and completion kinds. */
export class KvmodNodeKindProvider extends DefaultNodeKindProvider {
    override getSymbolKind(node: AstNode | AstNodeDescription): SymbolKind {
        return SYMBOL_KINDS[typeOf(node)] ?? super.getSymbolKind(node);
    }

    override getCompletionItemKind(node: AstNode | AstNodeDescription): CompletionItemKind {
        return COMPLETION_KINDS[typeOf(node)] ?? super.getCompletionItemKind(node);
    }
}

function typeOf(node: AstNode | AstNodeDescription): string {
    return '$type' in node ? node.$type : node.type;
}
