/**
 * The model rule (src/language/common/model-sets.ts) applied to files on disk: which of the files a command
 * was given form which models. Every command that takes several files or a folder asks here, and so can a
 * config file's list of models, so "the model" means the same to `validate`, `transform`, `generate` and
 * the editor.
 */
import { readFile } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { URI } from 'langium';
import { partitionModels, type ModelFile } from '../language/common/model-sets.js';
import { createKvmodCoreServices } from '../language/kvmod-core-module.js';

/** One model among the files: its paths as given, and the `.kvlm` files among them that were transformed from it. */
export interface ModelFileSet {
    /** All its files (`.pidm`, and `.kvlm`), in the order given. */
    files: string[];
    /** Its `.kvlm` files whose `source` is one of its `.pidm` files: transformation output, not input. */
    derived: string[];
}

/**
 * Splits paths into models. Each file is parsed, not linked (unreadable or unparsable files form models
 * of their own, and the loader reports them). One path is one model without reading it.
 */
export async function groupModelFiles(paths: readonly string[]): Promise<ModelFileSet[]> {
    if (paths.length <= 1) return paths.map((path) => ({ files: [path], derived: [] }));
    const factory = createKvmodCoreServices().shared.workspace.LangiumDocumentFactory;
    const byUri = new Map<string, string>();
    const files: ModelFile[] = [];
    for (const path of paths) {
        const uri = URI.file(nodePath.resolve(path));
        if (byUri.has(uri.toString())) continue;
        byUri.set(uri.toString(), path);
        let root: ModelFile['root'];
        try {
            const text = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '');
            root = factory.fromString(text, uri).parseResult.value;
        } catch {
            root = undefined;
        }
        files.push({ uri: uri.toString(), root });
    }
    return partitionModels(files).map((set) => ({
        files: set.files.map((uri) => byUri.get(uri)!),
        derived: set.derived.map((uri) => byUri.get(uri)!),
    }));
}

/** The files a model is generated or transformed from: its files less its derived `.kvlm` files. */
export function sourceFiles(set: ModelFileSet): string[] {
    return set.files.filter((file) => !set.derived.includes(file));
}
