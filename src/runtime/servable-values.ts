/**
 * Values the design cannot serve: the one place `kvmod data check`, `kvmod load` and `kvmod verify` ask whether
 * the engine could ever find a value, so that nothing is stored where no query can find it. A text attribute that
 * some query compares (`=`, `!=`) becomes a TAG field in every design; one that a query sorts on becomes SORTABLE.
 * Whether the engine can serve a text there is the engine's text rule for the options in effect (its
 * `EngineRuntime.textRules`, e.g. a RediSearch dialect's). A compared float is asked about too: RediSearch 1.2 indexes
 * many of them as a nearby 32-bit float. Every other value (projected only, ints, dates) is stored and returned as it is.
 */
import { KvmodError } from '../pipeline/errors.js';
import { MAX_REPORTED_DATA_ERRORS, objectLocation, type InstanceData } from './instance-data.js';
import type { RuntimeModel } from './runtime-model.js';

/** Which texts a design can serve: an engine's rules for the options in effect. */
export interface TextRules {
    /** The name messages give the engine (`redisearch1`). */
    name: string;
    /** Why an equality filter could never find the text, or null when it can. */
    unservable(text: string): string | null;
    /** Why the engine could not sort on the text, or null when it can. */
    unsortable(text: string): string | null;
    /** Why a comparison with a stored float could answer wrongly, or null when it cannot (absent: every float). */
    unservableNumber?(value: number): string | null;
}

/**
 * One line per value of `data` the design cannot serve under `rules` (the model's `searched` texts): the object,
 * the field, the queries that could never find it and why. Empty when every value is servable.
 */
export function unservableValues(model: RuntimeModel, data: InstanceData, rules: TextRules, file = 'data'): string[] {
    const problems: string[] = [];
    for (const [entityName, searched] of model.searched ?? []) {
        const entity = model.entities.get(entityName);
        if (!entity) continue;
        // Index loops: they run once per object of the data, in code not optimized yet (`for…of` makes objects).
        const attributes = [...searched.keys()];
        const uses = [...searched.values()];
        const objects = data[entityName] ?? [];
        for (let index = 0; index < objects.length; index++) {
            const object = objects[index];
            for (let a = 0; a < attributes.length; a++) {
                const attribute = attributes[a];
                const use = uses[a];
                const value = object[attribute];
                if (typeof value === 'number') {
                    const why = use.compared.length > 0 ? (rules.unservableNumber?.(value) ?? null) : null;
                    if (why !== null)
                        problems.push(
                            `${file}: ${objectLocation(entityName, index, object[entity.idName])}.${attribute}: ${rules.name} cannot serve this number (${value}) to ${use.compared.join(', ')}: ${why}`,
                        );
                    continue;
                }
                if (typeof value !== 'string') continue;
                const compared = use.compared.length > 0 ? rules.unservable(value) : null;
                const why = compared ?? (use.sorted.length > 0 ? rules.unsortable(value) : null);
                if (why === null) continue;
                const queries = compared !== null ? use.compared : use.sorted;
                problems.push(
                    `${file}: ${objectLocation(entityName, index, object[entity.idName])}.${attribute}: ${rules.name} cannot serve this text to ${queries.join(', ')}: ${why}`,
                );
            }
        }
    }
    return problems;
}

/** Throws a KvmodError (exit 1) listing the values of `data` the design cannot serve under `rules`, if any. */
export function assertServable(model: RuntimeModel, data: InstanceData, rules: TextRules, file = 'data'): void {
    const problems = unservableValues(model, data, rules, file);
    if (problems.length === 0) return;
    const shown = problems.slice(0, MAX_REPORTED_DATA_ERRORS);
    if (problems.length > shown.length) shown.push(`… and ${problems.length - shown.length} more problems`);
    throw new KvmodError(
        `${file} holds values no query could find on ${rules.name}; kvmod stores nothing it cannot serve: fix or remove them:\n${shown.join('\n')}`,
        { code: 'data.unservable', path: file },
    );
}
