/**
 * The plain data the cluster steps (client-runtime/kvmod-cluster-entities.ts) run from, for a redis-core design with
 * an entity store. Apart from redis-core-cluster-lua.ts because it reads the entity store's design (and through it
 * the language layer), which the target's template helpers — loaded by every command's start-up — must not.
 */
import type { KvlmModel } from '../../language/generated/ast.js';
import { coreLuaCollections } from '../entities/entity-store-design.js';
import type { ClusterDesign } from '../typescript/client-runtime/kvmod-cluster-entities.js';
import { coreClusterFunctions } from './redis-core-cluster-lua.js';
import type { CoreViewModel } from './redis-core-view-model.js';

/**
 * What the cluster steps (client-runtime/kvmod-cluster-entities.ts) need of a design with an entity store: the entity
 * layout, each collection's rows as the entities make them and its partition, the function names. Plain data: the
 * generated client embeds it.
 */
export function coreClusterDesign(kvlm: KvlmModel, design: CoreViewModel): ClusterDesign {
    const store = design.entityStore;
    if (!store) throw new Error(`the design keeps no entity store: ${design.noEntityStore ?? ''}`);
    const byName = new Map(design.collections.map((c) => [c.name, c]));
    return {
        schema: store.schema,
        collections: coreLuaCollections(kvlm, store.schema, design.collections).map((c) => {
            const core = byName.get(c.name)!;
            return {
                name: c.name,
                prefix: c.prefix,
                nodes: c.nodes,
                key: c.key,
                fields: c.fields.map(({ node, form }) => ({ node, form })),
                recordKey: core.recordKey,
                partition:
                    core.partition === null
                        ? null
                        : core.partition.fields.map((f) => ({ position: f.position, text: f.type === 'text' })),
            };
        }),
        functions: coreClusterFunctions(design.database),
    };
}
