/**
 * The query hover's "served by" line: runs the transformation on the model as it is in the editor (with
 * the `kvmod.merge.*` settings the client sent) and names the collection that serves the query.
 */
import { AstUtils } from 'langium';
import type { LangiumSharedServices } from 'langium/lsp';
import type { Query } from '../language/generated/ast.js';
import type { QueryCollectionLookup } from '../language/lsp/pidm-hover-provider.js';
import { transformPidmToKvlm, type TransformOptions } from '../../transformations/pidm-to-kvlm/index.js';
import { modelDocuments } from './server-workspace.js';

/** Creates the lookup the PIDM hover provider calls for a query. */
export function createQueryCollectionLookup(shared: LangiumSharedServices): QueryCollectionLookup {
    return async (query: Query) => {
        const document = AstUtils.getDocument(query);
        const documents = modelDocuments(shared, document.uri.toString());
        // The transformation expects valid models; while the model has errors there is nothing to say.
        if (
            documents.length === 0 ||
            documents.some((d) => (d.diagnostics ?? []).some((diagnostic) => diagnostic.severity === 1))
        ) {
            return undefined;
        }
        const merge = (await shared.workspace.ConfigurationProvider.getConfiguration('kvmod', 'merge')) as
            { threshold?: number; policy?: TransformOptions['merge'] } | undefined;
        const options: Partial<TransformOptions> = {};
        if (typeof merge?.threshold === 'number') options.threshold = merge.threshold;
        if (merge?.policy) options.merge = merge.policy;
        try {
            const { model } = transformPidmToKvlm(
                documents.map((d) => d.parseResult.value),
                options,
            );
            const collection = model.collections.find((c) => c.queries.some((served) => served.name === query.name));
            if (!collection) return undefined;
            const others = collection.queries.map((served) => served.name).filter((name) => name !== query.name);
            const sharing = others.length > 0 ? `, shared with ${others.map((name) => `\`${name}\``).join(', ')}` : '';
            const policy = model.policy ?? options.merge ?? 'safe';
            return `served by KVLM collection **${collection.name}** (${collection.fields.length} field(s)${sharing}; merge policy ${policy})`;
        } catch {
            // A transformation failure is reported by the commands; a hover just says less.
            return undefined;
        }
    };
}
