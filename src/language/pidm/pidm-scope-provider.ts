/**
 * Scoping for PIDM paths. The first segment of a path sees the query's aliases (the FROM entity or its
 * alias, INCLUDE aliases — inside an INCLUDE list only the earlier ones) and then the FROM entity's
 * members; each further segment sees the members of the entity the previous segment stands for.
 * Names resolve case-sensitively first; failing that, a unique case-insensitive match resolves (the
 * validator warns and offers a quick fix).
 */
import {
    AstUtils,
    MultiMapScope,
    EMPTY_SCOPE,
    MapScope,
    WorkspaceCache,
    stream,
    type AstNode,
    type AstNodeDescription,
    type ReferenceInfo,
    type Scope,
    type Stream,
} from 'langium';
import type { LangiumCoreServices, LangiumSharedCoreServices } from 'langium';
import { IndexedScopeProvider } from '../common/indexed-scope-provider.js';
import { modelSetIndex } from '../common/model-sets.js';
import {
    isChangeRate,
    isInclude,
    isPath,
    isReference,
    isReferenceSize,
    isSegment,
    type Entity,
    type Include,
    type Query,
    type Segment,
} from '../generated/ast.js';
import { containingQuery, entityOfElement } from './pidm-semantics.js';

/**
 * A scope made of layers (innermost first) that falls back to a case-insensitive match when no exact
 * name matches: an exact match in any layer wins; otherwise the innermost layer with case-insensitive
 * matches decides, and resolves only when it has exactly one (aliases shadow members, as they do for
 * exact names).
 */
export class CaseFallbackScope implements Scope {
    private readonly layers: readonly Scope[];
    private folded?: Map<string, AstNodeDescription[]>[];

    constructor(layers: Scope | readonly Scope[]) {
        this.layers = Array.isArray(layers) ? layers : [layers as Scope];
    }

    getElement(name: string): AstNodeDescription | undefined {
        for (const layer of this.layers) {
            const exact = layer.getElement(name);
            if (exact) return exact;
        }
        const candidates = this.caseInsensitiveMatches(name);
        return candidates.length === 1 ? candidates[0] : undefined;
    }

    getElements(name: string): Stream<AstNodeDescription> {
        const element = this.getElement(name);
        return element ? stream([element]) : stream([]);
    }

    getAllElements(): Stream<AstNodeDescription> {
        return stream(this.layers).flatMap((layer) => layer.getAllElements());
    }

    /** The innermost layer's elements whose names equal `name` ignoring case (several: ambiguous). */
    caseInsensitiveMatches(name: string): AstNodeDescription[] {
        const key = name.toLowerCase();
        for (const index of this.foldedIndexes()) {
            const candidates = index.get(key);
            if (candidates && candidates.length > 0) return candidates;
        }
        return [];
    }

    private foldedIndexes(): Map<string, AstNodeDescription[]>[] {
        if (!this.folded) {
            this.folded = this.layers.map((layer) => {
                const index = new Map<string, AstNodeDescription[]>();
                // The same node may be visible twice (document-local and global scope): count it once.
                const seen = new Set<AstNode | string>();
                for (const description of layer.getAllElements()) {
                    const identity = description.node ?? `${description.documentUri.toString()}#${description.path}`;
                    if (seen.has(identity)) continue;
                    seen.add(identity);
                    const key = description.name.toLowerCase();
                    const list = index.get(key);
                    if (list) list.push(description);
                    else index.set(key, [description]);
                }
                return index;
            });
        }
        return this.folded;
    }
}

/**
 * A workspace cache of scopes whose hits cost one map lookup (Langium's `get` asks `has`, then `get`): a scope is
 * never undefined. Evicted as Langium's.
 */
class ScopeCache<K, V extends object> extends WorkspaceCache<K, V> {
    override get(key: K): V | undefined;
    override get(key: K, provider: () => V): V;
    override get(key: K, provider?: () => V): V | undefined {
        return this.cache.get(key) ?? (provider ? super.get(key, provider) : super.get(key));
    }
}

/** A path step with nothing to see (its previous step stands for no entity). */
const EMPTY_FALLBACK_SCOPE = new CaseFallbackScope(EMPTY_SCOPE);

/**
 * The PIDM scope provider: aliases and dotted paths, with the case-insensitive fallback. Entity names (a
 * reference's target, a FROM clause) are looked up the default way, in scopes indexed by name.
 */
export class PidmScopeProvider extends IndexedScopeProvider {
    private readonly memberScopes: WorkspaceCache<Entity, Scope>;
    private readonly aliasScopes: WorkspaceCache<Query, Scope>;
    private readonly aliasDescriptions: WorkspaceCache<
        Query,
        { from: AstNodeDescription[]; includes: (AstNodeDescription | undefined)[] }
    >;
    private readonly memberFallbackScopes: WorkspaceCache<Entity, Scope>;
    private readonly firstStepScopes: WorkspaceCache<Query, Scope>;
    private readonly includeScopes: WorkspaceCache<Include, Scope>;
    private readonly modelScopes: WorkspaceCache<string, Scope>;
    /** The fallback over each (cached) default scope: its case-insensitive index is built once, not per miss. */
    private readonly fallbackScopes = new WeakMap<Scope, CaseFallbackScope>();
    private readonly shared: LangiumSharedCoreServices;

    constructor(services: LangiumCoreServices) {
        super(services);
        this.memberScopes = new ScopeCache(services.shared);
        this.aliasScopes = new WorkspaceCache(services.shared);
        this.aliasDescriptions = new WorkspaceCache(services.shared);
        this.memberFallbackScopes = new ScopeCache(services.shared);
        this.firstStepScopes = new ScopeCache(services.shared);
        this.includeScopes = new ScopeCache(services.shared);
        this.modelScopes = new WorkspaceCache(services.shared);
        this.shared = services.shared;
    }

    /** Entities of the same model only (model-sets.ts): a copy of the model in the folder is another model. */
    protected override getGlobalScope(referenceType: string, context: ReferenceInfo): Scope {
        const sets = modelSetIndex(this.shared);
        const uri = context.container.$document?.uri ?? AstUtils.findRootNode(context.container).$document?.uri;
        if (!uri || sets.setCount() <= 1) return super.getGlobalScope(referenceType, context);
        const set = sets.setOf(uri);
        return this.modelScopes.get(
            `${set.files[0]} ${referenceType}`,
            () => new MultiMapScope(this.indexManager.allElements(referenceType, new Set(set.files))),
        );
    }

    override getScope(context: ReferenceInfo): Scope {
        if (isSegment(context.container)) return this.getSegmentScope(context.container);
        // A workload's `Entity.member`: the entity's members, as a path step after the first sees them.
        if (
            (isChangeRate(context.container) && context.property === 'member') ||
            (isReferenceSize(context.container) && context.property === 'reference')
        ) {
            const entity = context.container.entity?.ref;
            return entity
                ? this.memberFallbackScopes.get(entity, () => new CaseFallbackScope(this.getMemberScope(entity)))
                : EMPTY_FALLBACK_SCOPE;
        }
        if (isReference(context.container) || context.property === 'entity' || context.property === 'query') {
            const scope = super.getScope(context);
            let fallback = this.fallbackScopes.get(scope);
            if (!fallback) {
                fallback = new CaseFallbackScope(scope);
                this.fallbackScopes.set(scope, fallback);
            }
            return fallback;
        }
        return super.getScope(context);
    }

    /**
     * The scope of a path step. The scopes are cached per entity (a step after the first), per query (a
     * first step) and per include (the first step of an include path): a 1000 × 1000 grid has ~2 M steps
     * and ~11,000 distinct scopes.
     */
    private getSegmentScope(segment: Segment): Scope {
        const path = segment.$container;
        if (!isPath(path)) return EMPTY_FALLBACK_SCOPE;
        const at = segment.$containerIndex;
        const index = at !== undefined && path.segments[at] === segment ? at : path.segments.indexOf(segment);
        if (index > 0) {
            const entity = entityOfElement(path.segments[index - 1]?.element?.ref);
            return entity
                ? this.memberFallbackScopes.get(entity, () => new CaseFallbackScope(this.getMemberScope(entity)))
                : EMPTY_FALLBACK_SCOPE;
        }
        const query = containingQuery(segment);
        if (!query) return EMPTY_FALLBACK_SCOPE;
        const include = path.$container;
        if (isInclude(include))
            return this.includeScopes.get(
                include,
                () => new CaseFallbackScope(this.getFirstStepLayers(query, include)),
            );
        return this.firstStepScopes.get(query, () => new CaseFallbackScope(this.getFirstStepLayers(query, undefined)));
    }

    /** A first step sees the query's aliases, then the FROM entity's members. */
    private getFirstStepLayers(query: Query, include: Include | undefined): Scope[] {
        const fromEntity = query.from?.entity?.ref;
        const members = fromEntity ? this.getMemberScope(fromEntity) : EMPTY_SCOPE;
        if (include) {
            // Inside an INCLUDE list only the FROM clause and earlier includes are visible: no cycles.
            const position = query.includes.indexOf(include);
            return [this.createAliasScope(query, Math.max(position, 0)), members];
        }
        return [this.aliasScopes.get(query, () => this.createAliasScope(query, query.includes.length)), members];
    }

    /**
     * The aliases visible to a path step: the FROM clause, then the first `includeCount` includes. Their
     * descriptions are made once per query and shared by the scopes of its include paths.
     */
    private createAliasScope(query: Query, includeCount: number): Scope {
        const { from, includes } = this.aliasDescriptions.get(query, () => this.describeAliases(query));
        const descriptions = [
            ...from,
            ...includes.slice(0, includeCount).filter((description) => description !== undefined),
        ];
        // MapScope keeps the last description of a name: reversing lets the earliest declaration win.
        return new MapScope(descriptions.reverse());
    }

    private describeAliases(query: Query): {
        from: AstNodeDescription[];
        includes: (AstNodeDescription | undefined)[];
    } {
        const from: AstNodeDescription[] = [];
        if (query.from) {
            const clause = query.from;
            if (clause.alias) from.push(this.descriptions.createDescription(clause, clause.alias));
            const written = clause.entity?.$refText;
            if (written) from.push(this.descriptions.createDescription(clause, written));
            // `FROM passenger` (a case slip, warned about there) still lets paths say `Passenger.flights`.
            const declared = clause.entity?.ref?.name;
            if (declared && declared !== written) from.push(this.descriptions.createDescription(clause, declared));
        }
        const includes = query.includes.map((include) => {
            const name = this.nameProvider.getName(include);
            return name ? this.descriptions.createDescription(include, name) : undefined;
        });
        return { from, includes };
    }

    private getMemberScope(entity: Entity): Scope {
        return this.memberScopes.get(
            entity,
            () =>
                new MapScope(
                    entity.members
                        .filter((member) => typeof member.name === 'string' && member.name.length > 0)
                        .map((member) => this.descriptions.createDescription(member, member.name))
                        .reverse(),
                ),
        );
    }
}
