/**
 * The cost policy (`--merge cost`): which of Algorithm 1's collections share a collection, chosen by the cost
 * of the design under the model's workload (cost-model.ts) instead of the 80% rule. A greedy heuristic: start
 * from today's design (the safe policy at the threshold), then repeatedly take the change with the largest saving
 * of time (reads + writes; less memory breaks a tie) — merge two collections whose grains agree, or take one
 * query's collection out of a merged one — until no change saves anything. Every merge it makes is one the safe
 * policy could make (same FROM entity, grains that agree), so no answer changes.
 *
 * Priced, not among the candidates: a narrower collection (the query's keys, filters and sort fields) with the
 * projected attributes looked up by identifier in the entity store (`lookupCandidate`, `lookupCost`). Its answer
 * needs an application-side join in the generated client, which no target generates yet, so neither the greedy nor
 * the integer program may take it; the choice prices it for each chosen collection (`lookups`) and `--explain` shows
 * the figures as not served by the target yet.
 */
import type { Workload } from '../../src/language/pidm/pidm-workload.js';
import type { CollectionModel } from './collection-model.js';
import { addCosts, collectionCost, lookupCandidate, lookupCost, operationsCost, type Cost } from './cost-model.js';
import { grainConflict } from './grain.js';
import { mergeCollections, mergedName } from './merge-collections.js';
import { optimizeSchema } from './optimize-schema.js';
import { DecisionLog, type OptimizationResult } from './trace.js';

/** One step of the greedy choice, with its figures. */
export interface CostDecision {
    /** `merge`: two collections become one; `split`: one query's collection leaves a merged one. */
    change: 'merge' | 'split';
    /** The collections before the change (for a split: the merged one, then the one taken out). */
    left: string;
    right: string;
    /** The queries of each side. */
    leftQueries: string[];
    rightQueries: string[];
    /** The cost of the collections the change replaces, and of those it makes. */
    before: Cost;
    after: Cost;
}

/** A chosen collection's narrower form with a lookup by identifier, priced (see the file comment). */
export interface LookupPricing {
    collection: string;
    queries: string[];
    /** The entities the lookup reads per row, with their fields: `Book (title, price)`. */
    lookups: { entity: string; fields: string[] }[];
    /** The collection as chosen, and its narrower form with the lookup. */
    materialized: Cost;
    narrowed: Cost;
}

/** What the cost policy chose, with the figures of today's design and of the chosen one. */
export interface CostChoice extends OptimizationResult {
    steps: CostDecision[];
    /** The design the greedy started from (the safe policy at the threshold). */
    startCost: Cost;
    cost: Cost;
    /** The chosen collections' narrower forms, priced but not served by any target yet. */
    lookups: LookupPricing[];
}

/** A group of Algorithm 1's collections (by position) that share one collection; kept in list order. */
type Group = readonly number[];

/** Chooses the design by cost (see the file comment). */
export function chooseByCost(
    collections: readonly CollectionModel[],
    threshold: number,
    workload: Workload,
): CostChoice {
    const chooser = new CostChooser(collections, workload);
    const start = optimizeSchema(collections, threshold, 'safe');
    let groups = chooser.groupsOf(start.collections);
    // What every design pays alike (the entity operations' calls) is in the totals, not in the changes' figures.
    const operations = operationsCost(workload);
    const startCost = addCosts(chooser.designCost(groups), operations);
    const steps: CostDecision[] = [];
    for (;;) {
        const best = chooser.bestChange(groups);
        if (!best) break;
        steps.push(best.decision);
        groups = best.groups;
    }
    const built = chooser.build(groups);
    return {
        ...built,
        steps,
        startCost,
        cost: addCosts(chooser.designCost(groups), operations),
        lookups: lookupPricings(built.collections, workload),
    };
}

/** The narrower form of each collection that has one, priced beside the collection as it is. */
export function lookupPricings(collections: readonly CollectionModel[], workload: Workload): LookupPricing[] {
    return collections.flatMap((collection) => {
        const candidate = lookupCandidate(collection);
        if (!candidate) return [];
        return [
            {
                collection: collection.name,
                queries: collection.queries.map((query) => query.name),
                lookups: candidate.lookups,
                materialized: collectionCost(collection, workload),
                narrowed: lookupCost(candidate, workload),
            },
        ];
    });
}

class CostChooser {
    private readonly position = new Map<string, number>();
    private readonly merged = new Map<string, CollectionModel>();
    private readonly costs = new Map<string, Cost>();

    constructor(
        private readonly collections: readonly CollectionModel[],
        private readonly workload: Workload,
    ) {
        collections.forEach((collection, index) => {
            for (const query of collection.queries) this.position.set(query.name, index);
        });
    }

    /** Whether the group's collection and one more collection of Algorithm 1 have grains that agree. */
    agrees(group: Group, member: number): boolean {
        return grainConflict(this.collection(group), this.collections[member]) === undefined;
    }

    /** The groups of Algorithm 1's collections that make up a design's collections. */
    groupsOf(design: readonly CollectionModel[]): Group[] {
        return design.map((collection) => [
            ...new Set(collection.queries.map((query) => this.position.get(query.name)!)),
        ]);
    }

    designCost(groups: readonly Group[]): Cost {
        return addCosts(...groups.map((group) => this.cost(group)));
    }

    /** The change with the largest saving of time (then of memory), or undefined when none saves anything. */
    bestChange(groups: readonly Group[]): { groups: Group[]; decision: CostDecision } | undefined {
        let best: { groups: Group[]; decision: CostDecision; saving: number; memory: number } | undefined;
        const consider = (replaced: Group[], made: Group[], decision: Omit<CostDecision, 'before' | 'after'>) => {
            const before = addCosts(...replaced.map((group) => this.cost(group)));
            const after = addCosts(...made.map((group) => this.cost(group)));
            const saving = before.time - after.time;
            const memory = before.memory - after.memory;
            if (saving < 1e-9 * Math.max(1, before.time) && !(saving >= 0 && memory > 0)) return;
            if (best && (saving < best.saving || (saving === best.saving && memory <= best.memory))) return;
            const next = groups.filter((group) => !replaced.includes(group));
            next.push(...made);
            next.sort((a, b) => a[0] - b[0]);
            best = { groups: next, decision: { ...decision, before, after }, saving, memory };
        };
        for (let i = 0; i < groups.length; i++) {
            for (let j = i + 1; j < groups.length; j++) {
                const union = [...groups[i], ...groups[j]].sort((a, b) => a - b);
                if (grainConflict(this.collection(groups[i]), this.collection(groups[j])) !== undefined) continue;
                consider([groups[i], groups[j]], [union], {
                    change: 'merge',
                    left: this.collection(groups[i]).name,
                    right: this.collection(groups[j]).name,
                    leftQueries: this.queries(groups[i]),
                    rightQueries: this.queries(groups[j]),
                });
            }
            if (groups[i].length < 2) continue;
            for (const member of groups[i]) {
                const rest = groups[i].filter((other) => other !== member);
                consider([groups[i]], [rest, [member]], {
                    change: 'split',
                    left: this.collection(groups[i]).name,
                    right: this.collections[member].name,
                    leftQueries: this.queries(groups[i]),
                    rightQueries: this.queries([member]),
                });
            }
        }
        return best && { groups: best.groups, decision: best.decision };
    }

    /** The chosen design: each group merged in list order, the merges logged as Algorithm 3 logs them. */
    build(groups: readonly Group[]): OptimizationResult {
        const log = new DecisionLog();
        const taken = new Set(this.collections.map((collection) => collection.name));
        const result = groups.map((group) =>
            group
                .map((index) => this.collections[index])
                .reduce((left, right) => {
                    const made = mergeCollections(left, right, mergedName(left, right, taken));
                    log.merged(left, right, made, common(left.fieldIds, right.fieldIds), undefined);
                    return made;
                }),
        );
        return { collections: result, decisions: log.decisions(), warnings: log.warnings };
    }

    private queries(group: Group): string[] {
        return group.flatMap((index) => this.collections[index].queries.map((query) => query.name));
    }

    /** The group's collection (merged in list order; names as Algorithm 2 would give them, without the suffixes). */
    private collection(group: Group): CollectionModel {
        if (group.length === 1) return this.collections[group[0]];
        const key = group.join(',');
        let made = this.merged.get(key);
        if (!made) {
            const left = this.collection(group.slice(0, -1));
            const right = this.collections[group[group.length - 1]];
            made = mergeCollections(left, right, `${left.name}_${right.name}`);
            this.merged.set(key, made);
        }
        return made;
    }

    private cost(group: Group): Cost {
        const key = group.join(',');
        let cost = this.costs.get(key);
        if (!cost) {
            cost = collectionCost(this.collection(group), this.workload);
            this.costs.set(key, cost);
        }
        return cost;
    }
}

/** A design's collections with the queries each serves and its cost, and the cost of the whole design. */
export interface CostedDesign {
    collections: { name: string; queries: string[]; cost: Cost }[];
    /** What the entity operations cost whatever the design (`operationsCost`), in `cost` too. */
    operations: Cost;
    cost: Cost;
}

/** The cost of each collection of a design (and of the design) under the workload. */
export function costedDesign(collections: readonly CollectionModel[], workload: Workload): CostedDesign {
    const costed = collections.map((collection) => ({
        name: collection.name,
        queries: collection.queries.map((query) => query.name),
        cost: collectionCost(collection, workload),
    }));
    const operations = operationsCost(workload);
    return {
        collections: costed,
        operations,
        cost: addCosts(operations, ...costed.map((collection) => collection.cost)),
    };
}

/** How many ids two ascending id arrays share. */
function common(a: Int32Array, b: Int32Array): number {
    let count = 0;
    for (let i = 0, j = 0; i < a.length && j < b.length;) {
        if (a[i] < b[j]) i++;
        else if (a[i] > b[j]) j++;
        else {
            count++;
            i++;
            j++;
        }
    }
    return count;
}

/** The integer program of the choice: one binary per group whose grains agree, each collection in one group. */
export interface CostProgram {
    /** The program in CPLEX LP format (what HiGHS and other solvers read): minimize the time of the design. */
    lp: string;
    /** The group of each variable `x<i>` (positions of Algorithm 1's collections) and its cost. */
    groups: { members: number[]; cost: Cost }[];
}

/**
 * The exact form of the choice for small models (every group of collections with one FROM entity whose grains
 * agree: 2^n per entity): minimize Σ time(g)·x_g with every collection in exactly one chosen group. A solver
 * outside this layer solves it; the tests use it to check the greedy. Throws past `maxGroups` candidate groups.
 */
export function costProgram(
    collections: readonly CollectionModel[],
    workload: Workload,
    maxGroups = 5000,
): CostProgram {
    const chooser = new CostChooser(collections, workload);
    const groups: { members: number[]; cost: Cost }[] = [];
    const byRoot = new Map<string, number[]>();
    collections.forEach((collection, index) => {
        const list = byRoot.get(collection.rootEntity);
        if (list) list.push(index);
        else byRoot.set(collection.rootEntity, [index]);
    });
    for (const members of byRoot.values()) {
        // Grow groups in list order; a group whose grains disagree has no agreeing supersets worth keeping.
        const grow = (group: number[], next: number) => {
            for (let k = next; k < members.length; k++) {
                const candidate = [...group, members[k]];
                if (group.length > 0 && !chooser.agrees(group, members[k])) continue;
                groups.push({ members: candidate, cost: chooser.designCost([candidate]) });
                if (groups.length > maxGroups) throw new RangeError(`more than ${maxGroups} candidate groups`);
                grow(candidate, k + 1);
            }
        };
        grow([], 0);
    }
    const term = (value: number, variable: string) => `${value} ${variable}`;
    const lines = ['Minimize', ` obj: ${groups.map((group, i) => term(group.cost.time, `x${i}`)).join(' + ')}`];
    lines.push('Subject To');
    collections.forEach((_, index) => {
        const covering = groups.flatMap((group, i) => (group.members.includes(index) ? [`x${i}`] : []));
        lines.push(` c${index}: ${covering.join(' + ')} = 1`);
    });
    lines.push('Binary', ` ${groups.map((_, i) => `x${i}`).join(' ')}`, 'End');
    return { lp: lines.join('\n') + '\n', groups };
}
