/**
 * What "the model" is — one rule for the editor and every command. A folder may hold several unrelated
 * models (copies, variants, test fixtures), so the files are split into model sets before names are
 * resolved across them:
 *
 * - a `.pidm` file belongs with the files it links to: a file that uses an entity name (in `FROM` or a
 *   `ref`) it does not declare itself is joined with every file that declares that name (case-insensitively,
 *   as names resolve); the sets are the connected groups of that relation. A file that declares all it uses
 *   — a complete model, or a copy of one — is a model of its own;
 * - a `.kvlm` file is a model of its own, unless its `source` names a `.pidm` file among the files: then it
 *   is that model's transformation output and joins its set as `derived` (checked against it, never
 *   generated again: `kvmod transform` writing `m.kvlm` beside `m.pidm` does not make `generate .` see the
 *   model twice).
 *
 * Names resolve only inside a set (the scope providers and workspace-wide checks ask `ModelSetIndex`), so
 * a copy beside a model causes no "duplicate" errors, and a model split across files still links.
 */
import { URI, UriUtils, WorkspaceCache, type AstNode, type LangiumDocument } from 'langium';
import type { LangiumSharedCoreServices } from 'langium';
import { isKvlmModel, isPidmModel } from '../generated/ast.js';

/** One file to place: its URI (as a string) and its parsed (not necessarily linked) root. */
export interface ModelFile {
    uri: string;
    root: AstNode | undefined;
}

/** One model: its files in input order; `derived` lists the `.kvlm` files transformed from its `.pidm` files. */
export interface ModelSet {
    files: string[];
    derived: string[];
}

/** Splits files into model sets (see the file comment); sets and their files keep the input order. */
export function partitionModels(files: readonly ModelFile[]): ModelSet[] {
    const index = new Map(files.map((file, i) => [file.uri, i]));
    const parent = files.map((_, i) => i);
    const find = (i: number): number => {
        while (parent[i] !== i) i = parent[i] = parent[parent[i]];
        return i;
    };
    const union = (a: number, b: number) => {
        const [ra, rb] = [find(a), find(b)];
        if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
    };
    const declaredIn = new Map<string, number[]>();
    const names = files.map((file) => (isPidmModel(file.root) ? pidmNames(file.root) : undefined));
    names.forEach((entry, i) => {
        for (const name of entry?.declared ?? []) {
            const list = declaredIn.get(name) ?? [];
            list.push(i);
            declaredIn.set(name, list);
        }
    });
    names.forEach((entry, i) => {
        if (!entry) return;
        for (const name of entry.used) {
            if (entry.declared.has(name)) continue;
            for (const j of declaredIn.get(name) ?? []) union(i, j);
        }
    });
    const derived = new Set<number>();
    files.forEach((file, i) => {
        if (!isKvlmModel(file.root) || !file.root.source) return;
        const source = UriUtils.resolvePath(UriUtils.dirname(URI.parse(file.uri)), file.root.source).toString();
        const j = index.get(source);
        if (j !== undefined && isPidmModel(files[j].root)) {
            union(i, j);
            derived.add(i);
        }
    });
    const sets = new Map<number, ModelSet>();
    files.forEach((file, i) => {
        const root = find(i);
        const set = sets.get(root) ?? { files: [], derived: [] };
        set.files.push(file.uri);
        if (derived.has(i)) set.derived.push(file.uri);
        sets.set(root, set);
    });
    return [...sets.values()];
}

/** The entity names a PIDM file declares and those it uses, lower-cased (names resolve case-insensitively). */
function pidmNames(root: AstNode): { declared: Set<string>; used: Set<string> } {
    const declared = new Set<string>();
    const used = new Set<string>();
    if (!isPidmModel(root)) return { declared, used };
    for (const entity of root.entities ?? []) {
        if (typeof entity.name === 'string') declared.add(entity.name.toLowerCase());
        for (const member of entity.members ?? []) {
            const target = (member as { target?: { $refText?: string } }).target?.$refText;
            if (target) used.add(target.toLowerCase());
        }
    }
    for (const query of root.queries ?? []) {
        const from = query.from?.entity?.$refText;
        if (from) used.add(from.toLowerCase());
    }
    return { declared, used };
}

/**
 * The model sets of a Langium workspace, recomputed when the workspace changes: which documents' names a
 * document may see. Documents outside the `file` scheme (in-memory tests) are placed like files.
 */
export class ModelSetIndex {
    private readonly cache: WorkspaceCache<'sets', Map<string, ModelSet>>;

    constructor(private readonly shared: LangiumSharedCoreServices) {
        this.cache = new WorkspaceCache(shared);
    }

    /** How many models the workspace holds (1 when every document belongs to one). */
    setCount(): number {
        return new Set(this.sets().values()).size;
    }

    /** The set of the document with this URI (a set of its own when the document is unknown). */
    setOf(uri: URI | string): ModelSet {
        const key = uri.toString();
        return this.sets().get(key) ?? { files: [key], derived: [] };
    }

    /** Whether two documents belong to the same model. */
    sameModel(a: LangiumDocument, b: LangiumDocument): boolean {
        return a === b || this.setOf(a.uri) === this.setOf(b.uri);
    }

    private sets(): Map<string, ModelSet> {
        return this.cache.get('sets', () => {
            const files = this.shared.workspace.LangiumDocuments.all
                .map((document) => ({ uri: document.uri.toString(), root: document.parseResult?.value }))
                .toArray();
            const byUri = new Map<string, ModelSet>();
            for (const set of partitionModels(files)) for (const uri of set.files) byUri.set(uri, set);
            return byUri;
        });
    }
}

const indexes = new WeakMap<LangiumSharedCoreServices, ModelSetIndex>();

/** The model-set index of a workspace (one per shared services, made on first use). */
export function modelSetIndex(shared: LangiumSharedCoreServices): ModelSetIndex {
    let index = indexes.get(shared);
    if (!index) {
        index = new ModelSetIndex(shared);
        indexes.set(shared, index);
    }
    return index;
}
