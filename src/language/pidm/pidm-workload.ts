/**
 * What a model's workload says, with its defaults: how often each query runs, how often each entity is
 * created, updated and deleted (an update changing every attribute, or one attribute or reference), how many
 * instances each entity has and how many targets each reference has on average. Figures are relative (one unit
 * of time throughout). Shared by the validator (the ranges) and the cost policy of the transformation.
 */
import {
    isAttribute,
    isIdAttribute,
    isReference,
    type PidmModel,
    type Reference,
    type WorkloadItem,
} from '../generated/ast.js';

/** How often a query runs when the workload does not say. */
export const DEFAULT_QUERY_RATE = 1;
/** How many instances an entity has when the workload does not say. */
export const DEFAULT_ENTITY_COUNT = 1000;
/** How many targets a `[*]` or `[1..*]` reference has on average when the workload does not say. */
export const DEFAULT_MANY_SIZE = 10;

/** The average targets a reference's cardinality admits: [least, most] (most may be Infinity). */
export function sizeRange(reference: Reference): [number, number] {
    const cardinality = reference.cardinality;
    if (!cardinality || cardinality.many) return [0, Infinity];
    const lower = cardinality.lower ?? 0;
    if (cardinality.upperMany) return [lower, Infinity];
    const upper = cardinality.upper ?? lower;
    return [lower, upper];
}

/** The size a reference has when the workload does not say: its cardinality's upper bound, else `DEFAULT_MANY_SIZE`. */
export function defaultSize(reference: Reference): number {
    const [least, most] = sizeRange(reference);
    return Number.isFinite(most) ? most : Math.max(least, DEFAULT_MANY_SIZE);
}

/** How often an entity changes. */
export interface EntityChanges {
    create: number;
    delete: number;
    /** Updates that change every attribute and reference. */
    update: number;
    /** Updates of one attribute or reference, by its name. */
    memberUpdates: ReadonlyMap<string, number>;
}

const NO_CHANGES: EntityChanges = { create: 0, delete: 0, update: 0, memberUpdates: new Map() };

/** A model's workload, defaults filled in. */
export class Workload {
    private readonly queryRates = new Map<string, number>();
    private readonly changes = new Map<string, EntityChanges>();
    private readonly counts = new Map<string, number>();
    private readonly sizes = new Map<string, number>();
    private readonly references = new Map<string, Reference>();

    constructor(models: readonly PidmModel[]) {
        for (const model of models) {
            for (const entity of model.entities ?? [])
                for (const member of entity.members ?? [])
                    if (isReference(member)) this.references.set(`${entity.name}.${member.name}`, member);
            for (const workload of model.workloads ?? []) for (const item of workload.items) this.add(item);
        }
    }

    /** Whether any model says anything about its workload. */
    static isDeclared(models: readonly PidmModel[]): boolean {
        return models.some((model) => (model.workloads ?? []).some((workload) => workload.items.length > 0));
    }

    /** How often the query runs. */
    queryRate(query: string): number {
        return this.queryRates.get(query) ?? DEFAULT_QUERY_RATE;
    }

    /** How often the entity changes. */
    changesOf(entity: string): EntityChanges {
        return this.changes.get(entity) ?? NO_CHANGES;
    }

    /** How often one attribute or reference of the entity changes: its own updates and the entity's. */
    updateRate(entity: string, member: string): number {
        const changes = this.changesOf(entity);
        return changes.update + (changes.memberUpdates.get(member) ?? 0);
    }

    /** How many entity operations run: every create, delete and update of every entity (one of one member too). */
    operationRate(): number {
        let rate = 0;
        for (const changes of this.changes.values()) {
            rate += changes.create + changes.delete + changes.update;
            for (const member of changes.memberUpdates.values()) rate += member;
        }
        return rate;
    }

    /** How many instances the entity has. */
    count(entity: string): number {
        return this.counts.get(entity) ?? DEFAULT_ENTITY_COUNT;
    }

    /** How many targets one instance of `entity` has through its `reference`, on average. */
    size(entity: string, reference: string): number {
        const key = `${entity}.${reference}`;
        const declared = this.references.get(key);
        return this.sizes.get(key) ?? (declared ? defaultSize(declared) : DEFAULT_MANY_SIZE);
    }

    /** How many instances of `entity` reach one `target` through its `reference`, on average. */
    referrers(entity: string, reference: string, target: string): number {
        return (this.count(entity) * this.size(entity, reference)) / Math.max(this.count(target), 1);
    }

    private add(item: WorkloadItem): void {
        switch (item.$type) {
            case 'QueryRate':
                if (item.query?.ref) this.queryRates.set(item.query.ref.name, item.rate);
                return;
            case 'EntityCount':
                if (item.entity?.ref) this.counts.set(item.entity.ref.name, item.count);
                return;
            case 'ReferenceSize': {
                const entity = item.entity?.ref;
                const reference = item.reference?.ref;
                if (entity && isReference(reference)) this.sizes.set(`${entity.name}.${reference.name}`, item.average);
                return;
            }
            case 'ChangeRate': {
                const entity = item.entity?.ref;
                if (!entity) return;
                const changes = this.changes.get(entity.name) ?? {
                    create: 0,
                    delete: 0,
                    update: 0,
                    memberUpdates: new Map<string, number>(),
                };
                const member = item.member?.ref;
                if (item.operation === 'update' && member && (isAttribute(member) || isReference(member)))
                    (changes.memberUpdates as Map<string, number>).set(member.name, item.rate);
                else if (item.operation === 'update' && !item.member) changes.update = item.rate;
                else if (item.operation === 'create' && !item.member) changes.create = item.rate;
                else if (item.operation === 'delete' && !item.member) changes.delete = item.rate;
                else if (isIdAttribute(member)) return;
                this.changes.set(entity.name, changes);
                return;
            }
        }
    }
}
