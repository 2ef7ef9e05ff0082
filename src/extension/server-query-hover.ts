/**
 * The query hover's "served by" lines: runs the transformation on the model as it is in the editor (with
 * the `kvmod.merge.*` settings the client sent), names the collection that serves the query, and where the
 * default target's design holds it (the Redis target: its index and keys), built with that target's
 * `kvmod.<target>.*` settings and described by the target itself (`describeCollection`): nothing of a
 * target's design is named or recomputed here.
 */
import { AstUtils } from 'langium';
import type { LangiumSharedServices } from 'langium/lsp';
import type { KvlmModel, Query } from '../language/generated/ast.js';
import type { QueryCollectionLookup } from '../language/lsp/pidm-hover-provider.js';
import { transformPidmToKvlm, type TransformOptions } from '../../transformations/pidm-to-kvlm/index.js';
import { buildViewModel } from '../generation/generation-engine.js';
import type { RawOptionValues } from '../generation/generation-options.js';
import { DEFAULT_TARGET, getGenerationTarget } from '../generation/generation-targets.js';
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
            const served = `served by KVLM collection **${collection.name}** (${collection.fields.length} field(s)${sharing}; merge policy ${policy})`;
            return `${served}${await designLine(shared, model, collection.name)}`;
        } catch {
            // A transformation failure is reported by the commands; a hover just says less.
            return undefined;
        }
    };
}

/**
 * The default target's line for the collection (`Redis: index \`…\``), from its design with the
 * `kvmod.<target>.*` settings; '' when the target describes none or its design cannot be built.
 */
async function designLine(shared: LangiumSharedServices, model: KvlmModel, collection: string): Promise<string> {
    const target = getGenerationTarget(DEFAULT_TARGET);
    const settings = (await shared.workspace.ConfigurationProvider.getConfiguration('kvmod', target.name)) as
        RawOptionValues | undefined;
    const given = Object.fromEntries(
        target.options
            .map((option) => option.name)
            .filter((name) => settings?.[name] !== undefined)
            .map((name) => [name, settings![name]]),
    );
    try {
        const line = await target.use(async (typed) =>
            typed.describeCollection
                ? typed.describeCollection(await buildViewModel(typed, model, given), collection)
                : undefined,
        );
        return line ? `\n\n${line}` : '';
    } catch {
        // A setting the design refuses (a limit of 0) is reported by the commands; the hover just says less.
        return '';
    }
}
