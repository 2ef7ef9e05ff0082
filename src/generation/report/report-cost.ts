/**
 * The report's "Design by cost" section: the model's workload (its defaults marked), and side by side the design
 * the cost policy (`--merge cost`) chooses and the one the 80% rule (`--merge paper`) makes, with their modelled
 * costs (transformations/pidm-to-kvlm/cost-model.ts). Built from the source PIDM alone, whatever policy made the
 * design the rest of the report describes.
 */
import type { PidmModel } from '../../language/generated/ast.js';
import { isReference } from '../../language/generated/ast.js';
import { Workload } from '../../language/pidm/pidm-workload.js';
import {
    compareByCost,
    COPY,
    INDEX,
    OPERATION,
    ROUND_TRIP,
    ROW,
    SCAN,
    type Cost,
    type CostedDesign,
} from '../../../transformations/pidm-to-kvlm/index.js';

/** Figures as the report prints them: thousands separated, at most one decimal. */
export function costFigure(value: number): string {
    return value.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

/** The figures of a cost, printed. */
export interface ReportCostFigures {
    reads: string;
    writes: string;
    time: string;
    memory: string;
}

/** One design of the comparison. */
export interface ReportCostDesign {
    /** `cost` or `paper`. */
    policy: string;
    collections: { name: string; queries: string[]; cost: ReportCostFigures }[];
    /** What the entity operations cost whatever the design (in the total too). */
    operations: ReportCostFigures;
    total: ReportCostFigures;
}

/** The section's view model. */
export interface ReportCost {
    /** Whether the model says anything about its workload (otherwise every figure is a default). */
    declared: boolean;
    /** The threshold both policies start from. */
    threshold: number;
    /** Field accesses a round trip counts. */
    roundTrip: number;
    /** Field accesses an entity operation counts whatever the design. */
    operation: number;
    /** Field accesses a copy of an unindexed attribute counts per row. */
    copy: number;
    /** The share of a matched row's key and fields a range read counts. */
    scan: number;
    /** Fields a row stores beside its own; fields a collection stores once (its index). */
    row: number;
    index: number;
    queries: { name: string; rate: string; default: boolean }[];
    entities: {
        name: string;
        count: string;
        countDefault: boolean;
        create: string;
        update: string;
        delete: string;
        /** Updates of one attribute or reference: `rank 5, title 20`, or an empty string. */
        memberUpdates: string;
    }[];
    references: { name: string; size: string; default: boolean }[];
    /** The cost policy's design, then the 80% rule's. */
    designs: ReportCostDesign[];
    /** Whether both policies make the same collections. */
    same: boolean;
    /** How far the cost policy's time is from the 80% rule's, in percent of the latter. */
    saving: string;
    /** Whether the cost policy's time is below the 80% rule's. */
    cheaper: boolean;
    /**
     * The cost policy's collections in their narrower form (indexed fields only, the projected ones looked up by
     * identifier in the entity store), priced; no target's client joins yet, so the policy never chooses them.
     */
    lookups: { collection: string; looksUp: string; now: ReportCostFigures; narrowed: ReportCostFigures }[];
}

/** The section's view model for the source PIDM (null without it). */
export function reportCost(models: readonly PidmModel[], threshold: number): ReportCost {
    const workload = new Workload(models);
    const declaredQueries = new Set<string>();
    const declaredCounts = new Set<string>();
    const declaredSizes = new Set<string>();
    for (const model of models)
        for (const block of model.workloads ?? [])
            for (const item of block.items) {
                if (item.$type === 'QueryRate' && item.query?.ref) declaredQueries.add(item.query.ref.name);
                if (item.$type === 'EntityCount' && item.entity?.ref) declaredCounts.add(item.entity.ref.name);
                if (item.$type === 'ReferenceSize' && item.entity?.ref && item.reference?.ref)
                    declaredSizes.add(`${item.entity.ref.name}.${item.reference.ref.name}`);
            }
    const entities = models.flatMap((model) => model.entities ?? []);
    const comparison = compareByCost([...models], threshold);
    const groups = (design: CostedDesign) =>
        design.collections
            .map((collection) => [...collection.queries].sort().join(','))
            .sort()
            .join(';');
    const paperTime = comparison.paper.cost.time;
    const costTime = comparison.cost.cost.time;
    return {
        declared: Workload.isDeclared(models),
        threshold,
        roundTrip: ROUND_TRIP,
        operation: OPERATION,
        copy: COPY,
        scan: SCAN,
        row: ROW,
        index: INDEX,
        queries: models
            .flatMap((model) => model.queries ?? [])
            .map((query) => ({
                name: query.name,
                rate: costFigure(workload.queryRate(query.name)),
                default: !declaredQueries.has(query.name),
            })),
        entities: entities.map((entity) => {
            const changes = workload.changesOf(entity.name);
            return {
                name: entity.name,
                count: costFigure(workload.count(entity.name)),
                countDefault: !declaredCounts.has(entity.name),
                create: costFigure(changes.create),
                update: costFigure(changes.update),
                delete: costFigure(changes.delete),
                memberUpdates: [...changes.memberUpdates]
                    .map(([member, rate]) => `${member} ${costFigure(rate)}`)
                    .join(', '),
            };
        }),
        references: entities.flatMap((entity) =>
            entity.members.filter(isReference).map((reference) => ({
                name: `${entity.name}.${reference.name}`,
                size: costFigure(workload.size(entity.name, reference.name)),
                default: !declaredSizes.has(`${entity.name}.${reference.name}`),
            })),
        ),
        designs: [reportDesign('cost', comparison.cost), reportDesign('paper', comparison.paper)],
        same: groups(comparison.cost) === groups(comparison.paper),
        saving: costFigure(paperTime > 0 ? Math.abs((100 * (paperTime - costTime)) / paperTime) : 0),
        cheaper: costTime < paperTime,
        lookups: comparison.lookups.map((lookup) => ({
            collection: lookup.collection,
            looksUp: lookup.lookups.map((l) => `${l.entity} (${l.fields.join(', ')})`).join(', '),
            now: figures(lookup.materialized),
            narrowed: figures(lookup.narrowed),
        })),
    };
}

function figures(cost: Cost): ReportCostFigures {
    return {
        reads: costFigure(cost.reads),
        writes: costFigure(cost.writes),
        time: costFigure(cost.time),
        memory: costFigure(cost.memory),
    };
}

function reportDesign(policy: string, design: CostedDesign): ReportCostDesign {
    return {
        policy,
        collections: design.collections.map((collection) => ({
            name: collection.name,
            queries: collection.queries,
            cost: figures(collection.cost),
        })),
        operations: figures(design.operations),
        total: figures(design.cost),
    };
}
