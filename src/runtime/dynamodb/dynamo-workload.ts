/**
 * `kvmod workload --target dynamodb --endpoint URL`: the workload of runtime/entities/workload.ts on DynamoDB. The
 * design's tables are created anew before the run and before every replay of a shrink; each writer has its own
 * client (its own connections); operations run through `executeDynamoOperation`; the live check is the entity
 * store's (`checkDynamoEntities`); the digest hashes every item of every table of the design. Destructive by design:
 * the endpoint must be a scratch one.
 */
import { createHash } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { targetOptions as resolveTargetOptions } from '../../generation/generation-engine.js';
import type { DynamoViewModel } from '../../generation/dynamodb/dynamodb-view-model.js';
import { KvmodError } from '../../pipeline/errors.js';
import { runSettings, runWorkload, type EntityExecutor, type WorkloadStore } from '../entities/workload.js';
import type { EngineWorkloadResult, EngineWorkloadRun } from '../engine.js';
import type { RuntimeDesign } from '../runtime-design.js';
import { designOptions, engineViewModel } from '../runtime-actions.js';
import {
    checkDynamoEntities,
    dynamoEntitiesUnsupported,
    executeDynamoOperation,
    type DynamoEntityContext,
} from './dynamo-entities.js';
import { connectDynamo, dynamoEngine } from './dynamo-engine.js';

/** An executor over one client: refusals as codes, any other error as an outcome without a code. */
export function dynamoExecutor(context: DynamoEntityContext): EntityExecutor {
    return {
        async execute(operation) {
            try {
                return await executeDynamoOperation(context, operation);
            } catch (error) {
                return { ok: false, code: null, message: error instanceof Error ? error.message : String(error) };
            }
        },
    };
}

/** Every item of every table of the design, hashed in key order. */
async function digestTables(documents: DynamoDBDocumentClient, view: DynamoViewModel): Promise<string> {
    const hash = createHash('sha1');
    for (const table of [...new Set([...view.tables.map((t) => t.name), view.entityTable])]) {
        const items: string[] = [];
        let start: Record<string, unknown> | undefined;
        do {
            const page = await documents.send(
                new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }),
            );
            for (const item of page.Items ?? [])
                items.push(
                    JSON.stringify(
                        Object.keys(item)
                            .sort()
                            .map((name) => [name, item[name]]),
                    ),
                );
            start = page.LastEvaluatedKey;
        } while (start !== undefined);
        hash.update(`${table}\0${items.sort().join('\0')}\0`);
    }
    return hash.digest('hex');
}

/** Runs the workload on the endpoint (the engine's `runWorkload`); the report says whether anything differed. */
export async function runDynamoWorkloadOnDesign(
    design: RuntimeDesign,
    options: EngineWorkloadRun,
): Promise<EngineWorkloadResult> {
    const given = designOptions(dynamoEngine, options.targetOptions ?? {});
    const session = await dynamoEngine.connect({ urls: [options.server], timeoutSeconds: options.timeoutSeconds });
    const clients: DynamoDBClient[] = [];
    const client = () => {
        // Each writer has clients of its own (its connections are not shared with the other writer).
        const made = connectDynamo(options.server, options.timeoutSeconds);
        clients.push(made.client);
        return made.documents;
    };
    try {
        const values = { ...session.probe.options, ...given };
        const view = await engineViewModel(dynamoEngine, design, values);
        const unsupported = dynamoEntitiesUnsupported(design.kvlm);
        if (unsupported !== null)
            throw new KvmodError(`the workload needs the design's entity store: ${unsupported}`, {
                code: 'entity-store.unsupported',
            });
        const contextOf = (documents: DynamoDBDocumentClient): DynamoEntityContext => ({
            documents,
            view,
            kvlm: design.kvlm,
            model: design.model,
        });
        const admin = client();
        const writers = new Map<number, EntityExecutor>();
        const store: WorkloadStore = {
            reset: async () => {
                await session.prepareSchema(view, 'fresh');
            },
            writer: async (index) => {
                let writer = writers.get(index);
                if (writer === undefined) {
                    writer = dynamoExecutor(contextOf(client()));
                    writers.set(index, writer);
                }
                return writer;
            },
            check: () => checkDynamoEntities(contextOf(admin)),
            digest: () => digestTables(admin, view),
        };
        const report = await runWorkload(store, {
            model: design.model,
            design: design.kvlm,
            rules: dynamoEngine.textRules(resolveTargetOptions(dynamoEngine.target, values)),
            ...runSettings(options),
        });
        return {
            target: 'dynamodb',
            server: session.probe.server,
            engine: dynamoEngine.variantOf(view),
            report,
            warnings: [...design.warnings, ...session.contradictions(given), ...(session.probe.warnings ?? [])],
        };
    } finally {
        for (const made of clients) made.destroy();
        await session.close();
    }
}
