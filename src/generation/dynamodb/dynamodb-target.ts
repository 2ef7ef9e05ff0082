/**
 * The dynamodb target: the design on Amazon DynamoDB (a table per collection, keys and global secondary indexes
 * derived from the served queries, one `Query` per query, paged by `LastEvaluatedKey`). Template-only output: the
 * `CreateTable` inputs, a CloudFormation template, the AWS NoSQL Workbench model, and a README with the
 * access-pattern table.
 */
import { booleanOption, integerOption } from '../generation-options.js';
import type { GenerationTarget } from '../generation-target.js';
import type { DynamoViewModel } from './dynamodb-view-model.js';
import { dynamoHelpers } from './dynamodb-helpers.js';

/** The dynamodb target's option declarations. */
export const dynamoTargetOptions = {
    pageSize: integerOption(
        100,
        'Items per DynamoDB Query page (Limit): every query reads pages by LastEvaluatedKey until its answer is complete',
        { min: 1, max: 10000 },
    ),
    singleTable: booleanOption(
        false,
        "One table for every collection: each query's name prefixes its partition keys, and the collections share the global secondary indexes gsi1, gsi2…",
    ),
};

/** The DynamoDB generation target. */
export const dynamoTarget: GenerationTarget<typeof dynamoTargetOptions, DynamoViewModel> = {
    name: 'dynamodb',
    description:
        'Amazon DynamoDB: a table per collection, partition and sort keys and global secondary indexes from the queries; CreateTable inputs, CloudFormation, a NoSQL Workbench model, the access-pattern table',
    engine: 'dynamodb',
    options: dynamoTargetOptions,
    // Imported when it runs: the design code reaches the language layer, which `kvmod --help` must not load.
    buildDesign: async ({ kvlm }, options) =>
        (await import('./dynamodb-design.js')).buildDynamoViewModel(kvlm, {
            pageSize: options.pageSize,
            singleTable: options.singleTable,
        }),
    templates: {
        viewModelSchema: 'templates/dynamodb/view-model.schema.json',
        entries: [
            { template: 'create-tables.json.hbs' },
            { template: 'cloudformation.json.hbs' },
            { template: 'workbench.json.hbs' },
            { template: 'README.md.hbs' },
        ],
        helpers: dynamoHelpers,
    },
    warnings: (design) => design.warnings.map(({ code, query, message }) => ({ code, query, message })),
    describeCollection: (design, collection) => {
        const table = design.tables.find((t) => t.collection === collection);
        return table === undefined
            ? undefined
            : `DynamoDB: table \`${table.name}\`, key \`${table.keys[0].shape.partition}\` / \`${table.keys[0].shape.sort}\`${table.keys.length > 1 ? `, ${table.keys.length - 1} global secondary index${table.keys.length > 2 ? 'es' : ''}` : ''}`;
    },
};
