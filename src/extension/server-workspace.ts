/**
 * Which documents make up "the model" a command or hover is about, inside the language server: the
 * document's model set, by the one rule every command uses (src/language/common/model-sets.ts).
 */
import { URI, type LangiumDocument } from 'langium';
import type { LangiumSharedServices } from 'langium/lsp';
import { modelSetIndex } from '../language/common/model-sets.js';
import { isPidmModel, type PidmModel } from '../language/generated/ast.js';

/** The PIDM documents of the model `uri` belongs to (model-sets.ts), that document first, the others by URI. */
export function modelDocuments(shared: LangiumSharedServices, uri: string): LangiumDocument<PidmModel>[] {
    const documents = shared.workspace.LangiumDocuments;
    const start = URI.parse(uri);
    const first = documents.getDocument(start);
    if (!first || !isPidmDocument(first)) return [];
    const others = modelSetIndex(shared)
        .setOf(start)
        .files.filter((key) => key !== start.toString())
        .sort()
        .map((key) => documents.getDocument(URI.parse(key)))
        .filter(
            (document): document is LangiumDocument<PidmModel> => document !== undefined && isPidmDocument(document),
        );
    return [first, ...others];
}

/** The file-system paths of `modelDocuments`, for the pipeline (which reads files). */
export function modelFiles(shared: LangiumSharedServices, uri: string): string[] {
    const documents = modelDocuments(shared, uri);
    if (documents.length === 0) return [URI.parse(uri).fsPath];
    return documents.map((document) => document.uri.fsPath);
}

function isPidmDocument(document: LangiumDocument): document is LangiumDocument<PidmModel> {
    return document.uri.scheme === 'file' && isPidmModel(document.parseResult.value);
}
