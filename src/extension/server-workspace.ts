/**
 * Which documents make up "the model" a command or hover is about, inside the language server: the
 * document and every `.pidm` document linked to it through references (a model may be split across
 * files, and a folder may hold unrelated models).
 */
import { AstUtils, URI, type LangiumDocument } from 'langium';
import type { LangiumSharedServices } from 'langium/lsp';
import { isPidmModel, type PidmModel } from '../language/generated/ast.js';

/** The PIDM documents connected to `uri` through references, that document first, the others by URI. */
export function modelDocuments(shared: LangiumSharedServices, uri: string): LangiumDocument<PidmModel>[] {
    const documents = shared.workspace.LangiumDocuments.all.filter(isPidmDocument).toArray();
    const byUri = new Map(documents.map((document) => [document.uri.toString(), document]));
    const start = URI.parse(uri).toString();
    if (!byUri.has(start)) return [];
    const neighbours = new Map<string, Set<string>>();
    const link = (a: string, b: string) => {
        if (a === b || !byUri.has(b)) return;
        if (!neighbours.has(a)) neighbours.set(a, new Set());
        if (!neighbours.has(b)) neighbours.set(b, new Set());
        neighbours.get(a)!.add(b);
        neighbours.get(b)!.add(a);
    };
    for (const document of documents) {
        for (const reference of document.references) {
            const targets = 'items' in reference ? reference.items.map((item) => item.ref) : [reference.ref];
            for (const target of targets) {
                if (target) link(document.uri.toString(), AstUtils.getDocument(target).uri.toString());
            }
        }
    }
    const seen = new Set([start]);
    const queue = [start];
    while (queue.length > 0) {
        for (const next of neighbours.get(queue.shift()!) ?? []) {
            if (seen.has(next)) continue;
            seen.add(next);
            queue.push(next);
        }
    }
    const [first, ...rest] = [...seen];
    return [first, ...rest.sort()].map((key) => byUri.get(key)!);
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
