/**
 * The difference between two Redis designs of one database, as a migration plan: what changes per collection
 * (added, removed, rebuilt, kept; merged or split by where its queries went; fields added, removed, renamed, retyped,
 * re-indexed; key changes), and the steps that apply it online — every changed collection's index and rows are
 * built beside the old ones under a new physical name, all stable names are switched in one atomic step, then what
 * the new design no longer uses is dropped (see `redis-naming.ts`). Pure: the runtime (`runtime/redisearch/migration/`) runs
 * the steps, the CLI prints them.
 */
import { rowMapKey } from '../shared/entity-store.js';
import { bindRedisCommand } from './redis-commands.js';
import type { RedisCollection, RedisField, RedisQuery, RedisViewModel } from './redis-view-model-types.js';

/** What happens to a collection. */
export type CollectionChangeKind = 'kept' | 'rebuilt' | 'added' | 'removed';

/** How a field of a collection changes (in a rebuilt collection). */
export interface FieldChange {
    field: string;
    change: 'added' | 'removed' | 'renamed' | 'retyped' | 're-indexed' | 're-sourced';
    /** Readable before / after (type, index spec, or source), null where it does not apply. */
    from: string | null;
    to: string | null;
}

/** A collection in the plan. */
export interface CollectionChange {
    /** The stable name the queries use. */
    name: string;
    change: CollectionChangeKind;
    /** The physical index of the old design (null when added). */
    oldIndex: string | null;
    /** The physical index of the new design (null when removed). */
    newIndex: string | null;
    /** Old collections whose queries it now serves (more than one: they are merged into it). */
    mergedFrom: string[];
    /** New collections its queries went to (more than one: it is split). */
    splitInto: string[];
    fields: FieldChange[];
    /** The key pattern before and after, when it changes. */
    key: { from: string; to: string } | null;
    /** The row grain before and after, when it changes (`Book`, `Book × T`). */
    grain: { from: string; to: string } | null;
    /** Rows the new design writes into it (known when the data was given), null otherwise. */
    rows: number | null;
}

/** How a served query changes. */
export interface QueryChange {
    query: string;
    change: 'added' | 'removed' | 'changed' | 'moved' | 'unchanged';
    /** Its collection in the old and in the new design (null where it is absent). */
    from: string | null;
    to: string | null;
}

/** One step on the server. */
export interface PlanStep {
    /** 1-based. */
    step: number;
    action:
        | 'rename-database'
        | 'create-index'
        | 'copy-database'
        | 'write-both'
        | 'copy-attribute'
        | 'write-rows'
        | 'switch'
        | 'remove-attribute'
        | 'drop-index'
        | 'remove-name'
        | 'remove-database';
    /** The collections it concerns (stable names). */
    collections: string[];
    /** The physical indexes it creates, fills or drops. */
    indexes: string[];
    /**
     * Rows it writes (known when the data was given) — or deletes, for a drop (null: all rows of the index);
     * copy-database and remove-database: the old database's keys (entities and reverse hashes), when the server was read.
     */
    rows: number | null;
    /** Index builds it costs. */
    indexBuilds: number;
    /** The exact commands (without row writes, which are the design's insert per row). */
    commands: string[][];
    /** What readers see while it runs. */
    answers: string;
    /** write-both, copy-attribute, remove-attribute: the renamed attributes it concerns. */
    renamed?: AttributeRename[];
}

/**
 * An attribute the new design names otherwise (`--renamed Book.title=name`): the model cannot say it (a rename
 * relates two designs), so the user does, and the entities keep their values under the new name.
 */
export interface AttributeRename {
    entity: string;
    from: string;
    to: string;
}

/** Where the new rows come from: the entities the server holds (while the application writes), or a data file. */
export type RowSource = 'entities' | 'data';

/** The whole plan. */
export interface MigrationPlan {
    /** The database of each design; `origin`: where each name came from, as people read it (when known). */
    database: { from: string; to: string; origin?: { from: string; to: string } };
    dialect: string;
    collections: CollectionChange[];
    queries: QueryChange[];
    steps: PlanStep[];
    /** Totals. */
    cost: { indexBuilds: number; rowsWritten: number | null; indexesDropped: number };
    /** True when there is nothing to do. */
    empty: boolean;
    /** Why the plan cannot run online (empty when it can). */
    blockers: string[];
    /** Where the new rows come from. */
    source: RowSource;
    /** The renamed attributes the migration carries over (from the entities). */
    renamed: AttributeRename[];
    /** True when the migration renames the database online (the new model names it explicitly; from the entities). */
    renamesDatabase: boolean;
}

/** Row counts of the new design's collections, when the data is known. */
export type RowCounts = ReadonlyMap<string, number>;

const ANSWERS_BESIDE = 'unchanged: the old design keeps answering; nothing reads the new index yet';

/** What the dual writes guarantee (the `write-both` step): said where people read the plan. */
const WRITES_REACH_BOTH =
    "unchanged: the old design keeps answering; from here every entity operation (the application's writes) updates the old design's rows and the new ones, so no write made during the build is missing after the switch";

/**
 * Diffs two designs (same dialect) into a plan. `rows` counts the new design's rows per collection, when known;
 * `source` says where they come from (the steps differ: from the entities, the entity Function writes both designs
 * while the new collections are filled); `renamed`: the attributes the entities carry over under a new name.
 */
export function planMigration(
    from: RedisViewModel,
    to: RedisViewModel,
    rows?: RowCounts,
    blockers: readonly string[] = [],
    source: RowSource = 'data',
    renamed: readonly AttributeRename[] = [],
    renameDatabase = false,
): MigrationPlan {
    if (from.dialect !== to.dialect) throw new Error(`cannot plan from ${from.dialect} to ${to.dialect}`);
    const oldByName = new Map(from.collections.map((c) => [c.name, c]));
    const newByName = new Map(to.collections.map((c) => [c.name, c]));
    const oldHome = queryHomes(from);
    const newHome = queryHomes(to);

    const collections: CollectionChange[] = [];
    for (const next of to.collections) {
        const prev = oldByName.get(next.name);
        const mergedFrom = unique(next.queries.map((q) => oldHome.get(q.name)).filter((c) => c !== undefined));
        const base = {
            name: next.name,
            newIndex: next.physicalIndex,
            mergedFrom:
                mergedFrom.length > 1 || (mergedFrom.length === 1 && mergedFrom[0] !== next.name) ? mergedFrom : [],
            splitInto: prev ? splitOf(prev, newHome) : [],
            rows: rows?.get(next.name) ?? null,
        };
        if (!prev) {
            collections.push({ ...base, change: 'added', oldIndex: null, fields: [], key: null, grain: null });
            continue;
        }
        const same = prev.physicalIndex === next.physicalIndex;
        collections.push({
            ...base,
            change: same ? 'kept' : 'rebuilt',
            oldIndex: prev.physicalIndex,
            fields: same ? [] : fieldChanges(prev.fields, next.fields, renamed),
            key:
                prev.key.pattern.replace(prev.keyPrefix, '') === next.key.pattern.replace(next.keyPrefix, '')
                    ? null
                    : { from: prev.key.pattern, to: next.key.pattern },
            grain: grainOf(prev) === grainOf(next) ? null : { from: grainOf(prev), to: grainOf(next) },
        });
    }
    for (const prev of from.collections) {
        if (newByName.has(prev.name)) continue;
        collections.push({
            name: prev.name,
            change: 'removed',
            oldIndex: prev.physicalIndex,
            newIndex: null,
            mergedFrom: [],
            splitInto: splitOf(prev, newHome),
            fields: [],
            key: null,
            grain: null,
            rows: null,
        });
    }

    const queries = queryChanges(from, to);
    const online = renameDatabase && source === 'entities' && from.database !== to.database;
    const steps = planSteps(from, to, collections, source, source === 'entities' ? renamed : [], online);
    const built = collections.filter((c) => c.change === 'added' || c.change === 'rebuilt');
    const rowsWritten = built.every((c) => c.rows !== null) ? built.reduce((n, c) => n + (c.rows ?? 0), 0) : null;
    return {
        database: { from: from.database, to: to.database },
        dialect: to.dialect,
        collections,
        queries,
        steps,
        cost: {
            indexBuilds: built.length,
            rowsWritten,
            indexesDropped: collections.filter((c) => c.change === 'rebuilt' || c.change === 'removed').length,
        },
        empty: steps.length === 0,
        blockers: [...blockers],
        source,
        renamed: [...renamed],
        renamesDatabase: online,
    };
}

function queryHomes(view: RedisViewModel): Map<string, string> {
    return new Map(view.collections.flatMap((c) => c.queries.map((q) => [q.name, c.name] as const)));
}

function unique<T>(values: T[]): T[] {
    return [...new Set(values)];
}

function splitOf(prev: RedisCollection, newHome: Map<string, string>): string[] {
    const homes = unique(prev.queries.map((q) => newHome.get(q.name)).filter((c) => c !== undefined));
    return homes.length > 1 || (homes.length === 1 && homes[0] !== prev.name) ? homes : [];
}

function grainOf(c: RedisCollection): string {
    return [c.root.entity, ...c.nodes.map((n) => `${n.entity} (${n.parent}.${n.reference})`)].join(' × ');
}

function indexSpec(f: RedisField): string {
    if (!f.index) return 'stored only';
    return [f.index.type, f.index.sortable ? 'SORTABLE' : ''].filter(Boolean).join(' ');
}

/**
 * The old field a new one copies under a renamed attribute (`title = Book.title` -> `name = Book.name`): same node,
 * type and index, the source naming the attribute's old name where the new one names its new name.
 */
function renamedFrom(
    f: RedisField,
    prev: readonly RedisField[],
    renamed: readonly AttributeRename[],
    taken: ReadonlySet<string>,
): RedisField | undefined {
    const shape = (g: RedisField) => `${g.type} ${indexSpec(g)} ${g.sortKey !== null} ${g.equalityKey !== null}`;
    for (const r of renamed) {
        if (!f.source.endsWith(`.${r.to}`)) continue;
        const source = `${f.source.slice(0, -r.to.length)}${r.from}`;
        const old = prev.find((g) => g.source === source && !taken.has(g.name) && shape(g) === shape(f));
        if (old !== undefined) return old;
    }
    return undefined;
}

function fieldChanges(prev: RedisField[], next: RedisField[], renamed: readonly AttributeRename[] = []): FieldChange[] {
    const before = new Map(prev.map((f) => [f.name, f]));
    const after = new Map(next.map((f) => [f.name, f]));
    const changes: FieldChange[] = [];
    // Old fields that a renamed attribute's new field takes over: said as renamed, not as removed and added.
    const carried = new Set<string>();
    const renamedFields = new Set<string>();
    for (const f of next) {
        if (before.has(f.name)) continue;
        const old = renamedFrom(f, prev, renamed, carried);
        if (old === undefined || after.has(old.name)) continue;
        carried.add(old.name);
        renamedFields.add(f.name);
        changes.push({
            field: f.name,
            change: 'renamed',
            from: `${old.name} = ${old.source}`,
            to: `${f.name} = ${f.source}`,
        });
    }
    for (const f of next) {
        const old = before.get(f.name);
        if (renamedFields.has(f.name)) continue;
        if (!old) {
            changes.push({
                field: f.name,
                change: 'added',
                from: null,
                to: `${f.type} = ${f.source}, ${indexSpec(f)}`,
            });
            continue;
        }
        if (old.type !== f.type) changes.push({ field: f.name, change: 'retyped', from: old.type, to: f.type });
        if (old.source !== f.source)
            changes.push({ field: f.name, change: 're-sourced', from: old.source, to: f.source });
        const companions = (g: RedisField): string =>
            (g.sortKey ? ' + sort companion' : '') + (g.equalityKey ? ' + equality companion' : '');
        const was = indexSpec(old) + companions(old);
        const is = indexSpec(f) + companions(f);
        if (was !== is) changes.push({ field: f.name, change: 're-indexed', from: was, to: is });
    }
    for (const f of prev) {
        if (!after.has(f.name) && !carried.has(f.name))
            changes.push({ field: f.name, change: 'removed', from: `${f.type} = ${f.source}`, to: null });
    }
    return changes;
}

/** A query's command with the physical names left out: what the application sends, compared between designs. */
function commandShape(query: RedisQuery): string {
    return JSON.stringify(query.command.argv);
}

function queryChanges(from: RedisViewModel, to: RedisViewModel): QueryChange[] {
    const before = new Map(from.collections.flatMap((c) => c.queries.map((q) => [q.name, { c: c.name, q }] as const)));
    const after = new Map(to.collections.flatMap((c) => c.queries.map((q) => [q.name, { c: c.name, q }] as const)));
    const changes: QueryChange[] = [];
    for (const [name, { c, q }] of after) {
        const old = before.get(name);
        if (!old) changes.push({ query: name, change: 'added', from: null, to: c });
        else if (old.c !== c) changes.push({ query: name, change: 'moved', from: old.c, to: c });
        else {
            const same = commandShape(old.q) === commandShape(q);
            changes.push({ query: name, change: same ? 'unchanged' : 'changed', from: old.c, to: c });
        }
    }
    for (const [name, { c }] of before)
        if (!after.has(name)) changes.push({ query: name, change: 'removed', from: c, to: null });
    return changes;
}

function planSteps(
    from: RedisViewModel,
    to: RedisViewModel,
    changes: CollectionChange[],
    source: RowSource,
    renamed: readonly AttributeRename[],
    renameDatabase: boolean,
): PlanStep[] {
    const oldByName = new Map(from.collections.map((c) => [c.name, c]));
    const newByName = new Map(to.collections.map((c) => [c.name, c]));
    const steps: Omit<PlanStep, 'step'>[] = [];
    // Its own step, so that a plan never hides it: unless asked for, the runtime refuses it (the name is in every
    // entity key).
    if (from.database !== to.database && !renameDatabase)
        steps.push({
            action: 'rename-database',
            collections: [],
            indexes: [],
            rows: 0,
            indexBuilds: 0,
            commands: [],
            answers: 'not done online: see below',
        });
    const built = changes.filter((c) => c.change === 'added' || c.change === 'rebuilt');
    const create = (change: CollectionChange): Omit<PlanStep, 'step'> => {
        const next = newByName.get(change.name)!;
        return {
            action: 'create-index',
            collections: [change.name],
            indexes: [next.physicalIndex],
            rows: 0,
            indexBuilds: 1,
            commands: [bindRedisCommand(next.create, {})],
            answers: ANSWERS_BESIDE,
        };
    };
    const write = (change: CollectionChange): Omit<PlanStep, 'step'> => ({
        action: 'write-rows',
        collections: [change.name],
        indexes: [newByName.get(change.name)!.physicalIndex],
        rows: change.rows,
        indexBuilds: 0,
        commands: [],
        answers: ANSWERS_BESIDE,
    });
    const renaming = renamed.length > 0 ? { renamed: [...renamed] } : {};
    const byEntity = new Map<string, AttributeRename[]>();
    for (const r of renamed) byEntity.set(r.entity, [...(byEntity.get(r.entity) ?? []), r]);
    if (source === 'data') for (const change of built) steps.push(create(change), write(change));
    else if (built.length > 0 || renamed.length > 0 || renameDatabase) {
        // As migration-run.ts runs them: the indexes, then the dual writes, the renamed attributes copied, then the
        // fill from the entities.
        steps.push(...built.map(create));
        steps.push({
            action: 'write-both',
            collections: built.map((c) => c.name),
            indexes: built.map((c) => newByName.get(c.name)!.physicalIndex),
            rows: 0,
            indexBuilds: 0,
            commands: [['FUNCTION', 'LOAD', 'REPLACE', '<the migration library>']],
            answers: renameDatabase
                ? `${WRITES_REACH_BOTH}; every entity it writes is written under database ${to.database}'s keys too`
                : WRITES_REACH_BOTH,
            ...renaming,
        });
        if (renameDatabase)
            steps.push({
                action: 'copy-database',
                collections: [],
                indexes: [],
                rows: null,
                indexBuilds: 0,
                commands: [],
                answers: `unchanged: the old design keeps answering; every entity of ${from.database} is then held under ${to.database}'s keys too, and the entity operations keep both until the switch`,
            });
        for (const [entity, renames] of byEntity)
            steps.push({
                action: 'copy-attribute',
                collections: [entity],
                indexes: [],
                rows: null,
                indexBuilds: 0,
                commands: [],
                answers: `unchanged: the old design keeps answering; every ${entity} entity holds ${renames.map((r) => r.from).join(', ')} under ${renames.length === 1 ? 'its new name' : 'their new names'} too, and the entity operations keep both until the switch`,
                renamed: renames,
            });
        steps.push(...built.map(write));
    }
    if (built.length > 0 || renamed.length > 0 || renameDatabase) {
        steps.push({
            action: 'switch',
            collections: built.map((c) => c.name),
            indexes: built.map((c) => newByName.get(c.name)!.physicalIndex),
            rows: 0,
            indexBuilds: 0,
            commands: [
                ['MULTI'],
                ...built.map((c) => bindRedisCommand(newByName.get(c.name)!.point, {})),
                ...(source === 'entities'
                    ? [['FUNCTION', 'LOAD', 'REPLACE', "<the new design's entity library>"]]
                    : []),
                ...(renameDatabase
                    ? [['FUNCTION', 'LOAD', 'REPLACE', `<${from.database}'s library: its entity Function refuses>`]]
                    : []),
                ['EXEC'],
            ],
            answers:
                'atomic: every query answers from the old design before this step and from the new one after it, never a mix',
            ...renaming,
        });
    }
    for (const [entity, renames] of byEntity)
        steps.push({
            action: 'remove-attribute',
            collections: [entity],
            indexes: [],
            rows: null,
            indexBuilds: 0,
            commands: [],
            answers: `unchanged: the new design reads ${renames.map((r) => `${entity}.${r.to}`).join(', ')}`,
            renamed: renames,
        });
    for (const change of changes) {
        if (change.change !== 'rebuilt' && change.change !== 'removed') continue;
        const prev = oldByName.get(change.name)!;
        if (change.change === 'removed') {
            steps.push({
                action: 'remove-name',
                collections: [change.name],
                indexes: [],
                rows: 0,
                indexBuilds: 0,
                commands: [unpointArgv(prev)],
                answers: `the old design's queries of ${change.name} (${prev.queries.map((q) => q.name).join(', ') || 'none'}) stop answering: the new design has no such collection`,
            });
        }
        steps.push({
            action: 'drop-index',
            collections: [change.name],
            indexes: [prev.physicalIndex],
            rows: null,
            indexBuilds: 0,
            commands: [
                bindRedisCommand(prev.drop, {}),
                ...(prev.key.counterKey ? [['DEL', prev.key.counterKey, rowMapKey(prev.key.counterKey)]] : []),
            ],
            answers: 'unchanged: nothing reads the old index any more',
        });
    }
    if (renameDatabase)
        steps.push({
            action: 'remove-database',
            collections: [],
            indexes: [],
            rows: null,
            indexBuilds: 0,
            commands: [],
            answers: `unchanged: nothing reads database ${from.database} any more; the old application's entity operations are refused, naming ${to.database}`,
        });
    return steps.map((s, i) => ({ step: i + 1, ...s }));
}

/** The command that removes a stable name (the design has none: it is the dialect's inverse of `point`). */
function unpointArgv(collection: RedisCollection): string[] {
    return collection.pointerKey !== null ? ['DEL', collection.pointerKey] : ['FT.ALIASDEL', collection.index];
}

/** The plan as people read it. */
export function formatMigrationPlan(plan: MigrationPlan): string {
    const lines: string[] = [];
    const db =
        plan.database.from === plan.database.to ? plan.database.to : `${plan.database.from} -> ${plan.database.to}`;
    lines.push(`Migration plan for ${db} (${plan.dialect})`);
    lines.push('');
    if (plan.database.origin) {
        lines.push('Database:');
        lines.push(`  old design: ${plan.database.from}, ${plan.database.origin.from}`);
        lines.push(`  new design: ${plan.database.to}, ${plan.database.origin.to}`);
        lines.push('');
    }
    lines.push('Collections:');
    for (const c of plan.collections) {
        const head = `  ${c.name}: ${c.change}`;
        const where =
            c.change === 'kept'
                ? ` (index ${c.newIndex}, rows stay)`
                : c.change === 'rebuilt'
                  ? ` (index ${c.oldIndex} -> ${c.newIndex})`
                  : c.change === 'added'
                    ? ` (index ${c.newIndex})`
                    : ` (index ${c.oldIndex})`;
        lines.push(head + where);
        if (c.mergedFrom.length > 0)
            lines.push(
                `    serves the queries of ${c.mergedFrom.join(', ')}${c.mergedFrom.length > 1 ? ' (merged)' : ''}`,
            );
        if (c.splitInto.length > 0)
            lines.push(`    its queries go to ${c.splitInto.join(', ')}${c.splitInto.length > 1 ? ' (split)' : ''}`);
        for (const f of c.fields) {
            const detail = f.from !== null && f.to !== null ? `${f.from} -> ${f.to}` : (f.to ?? f.from ?? '');
            lines.push(`    field ${f.field} ${f.change}: ${detail}`);
        }
        if (c.key) lines.push(`    key ${c.key.from} -> ${c.key.to}`);
        if (c.grain) lines.push(`    row grain ${c.grain.from} -> ${c.grain.to}`);
    }
    const moved = plan.queries.filter((q) => q.change !== 'unchanged');
    if (moved.length > 0) {
        lines.push('');
        lines.push('Queries:');
        for (const q of moved) {
            const where =
                q.change === 'added'
                    ? `in ${q.to}`
                    : q.change === 'removed'
                      ? `was in ${q.from}`
                      : q.change === 'moved'
                        ? `${q.from} -> ${q.to}`
                        : `in ${q.to}`;
            lines.push(`  ${q.query}: ${q.change} (${where})`);
        }
    }
    lines.push('');
    if (plan.steps.length === 0) {
        lines.push('Nothing to do: the server holds the new design once it holds the old one.');
    } else {
        lines.push('Steps (online: queries keep answering from the old design until the switch):');
        for (const s of plan.steps) lines.push(`  ${s.step}. ${describeStep(s, plan)}`, `     answers: ${s.answers}`);
        const rows = plan.cost.rowsWritten === null ? 'every row of each built index' : `${plan.cost.rowsWritten} rows`;
        lines.push('');
        const { indexBuilds, indexesDropped } = plan.cost;
        lines.push(
            `Cost: ${indexBuilds} index build${indexBuilds === 1 ? '' : 's'}, ${rows} written, ${indexesDropped} old ${indexesDropped === 1 ? 'index' : 'indexes'} dropped with ${indexesDropped === 1 ? 'its' : 'their'} rows.`,
        );
    }
    if (plan.blockers.length > 0) {
        lines.push('');
        lines.push('Cannot run online:');
        for (const b of plan.blockers) lines.push(`  - ${b}`);
    }
    return `${lines.join('\n')}\n`;
}

function describeStep(s: PlanStep, plan: MigrationPlan): string {
    switch (s.action) {
        case 'rename-database':
            return `rename the database ${plan.database.from} -> ${plan.database.to}`;
        case 'copy-database':
            return `copy every entity of database ${plan.database.from} under ${plan.database.to}'s keys (${keysOf(s)})`;
        case 'remove-database':
            return `remove database ${plan.database.from}: its entities (${keysOf(s)}) and its design record`;
        case 'create-index':
            return `create index ${s.indexes[0]} for ${s.collections[0]} (1 index build)`;
        case 'write-both': {
            const also =
                s.renamed === undefined
                    ? ''
                    : `${s.indexes.length > 0 ? ', and' : ''} ${s.renamed.map((r) => `${r.entity}.${r.from} also as ${r.entity}.${r.to}`).join(', ')}`;
            if (s.indexes.length > 0)
                return `load the migration library: entity operations write ${s.indexes.join(', ')} too${also}`;
            if (s.renamed !== undefined) return `load the migration library: entity operations write${also}`;
            return `load the migration library: entity operations write every entity under database ${plan.database.to}'s keys too`;
        }
        case 'copy-attribute':
            return `copy ${renamedList(s, 'from')} to ${renamedList(s, 'to')} in every ${s.collections[0]} entity`;
        case 'remove-attribute':
            return `remove ${renamedList(s, 'from')} from every ${s.collections[0]} entity (the new design reads ${renamedList(s, 'to')})`;
        case 'write-rows':
            return `write ${s.rows === null ? 'every row' : `${s.rows} rows`} of ${s.collections[0]} into ${s.indexes[0]}${plan.source === 'entities' ? " from the server's entities" : ''}`;
        case 'switch':
            if (s.collections.length === 0) return 'switch the entity library and the design record in one MULTI';
            return `switch ${s.collections.map((c, i) => `${c} -> ${s.indexes[i]}`).join(', ')} in one MULTI`;
        case 'remove-name':
            return `remove the stable name ${s.collections[0]}`;
        case 'drop-index':
            return `drop index ${s.indexes[0]} of ${s.collections[0]} with its rows`;
    }
}

/** The old database's keys a step copies or removes, as people read them. */
function keysOf(s: PlanStep): string {
    return s.rows === null ? 'every key' : `${s.rows} ${s.rows === 1 ? 'key' : 'keys'}`;
}

/** `Book.title, Book.subtitle`: the old (or new) names of the attributes a step renames. */
function renamedList(s: PlanStep, side: 'from' | 'to'): string {
    return s.renamed!.map((r) => `${r.entity}.${r[side]}`).join(', ');
}
