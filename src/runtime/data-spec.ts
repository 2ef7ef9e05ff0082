/**
 * The optional data spec of `kvmod data generate --spec`: objects per entity and the domain of attribute
 * values (allowed values, or a range). JSON checked by `schemas/data-spec.schema.json`, then against the
 * model (names, types, ranges), every problem at its `file:line:col`. Documented in schemas/instance-data.md.
 */
import schema from '../../schemas/data-spec.schema.json' with { type: 'json' };
import { didYouMean, didYouMeanSentence } from '../language/common/did-you-mean.js';
import { startsWithCalendarDate } from '../language/common/calendar-date.js';
import { KvmodError } from '../pipeline/errors.js';
import { readJsonDocument, type JsonDocument } from '../pipeline/json-file.js';
import { escapeControls, quoteText } from '../pipeline/json-text.js';
import { TEMPORAL_PATTERNS } from './instance-data.js';
import type { RuntimeAttribute, RuntimeModel } from './runtime-model.js';

/** A scalar value of instance data. */
export type SpecValue = string | number | boolean;

/** The values of one attribute: a list, or an inclusive range. */
export interface AttributeDomain {
    values?: SpecValue[];
    min?: number | string;
    max?: number | string;
}

/** What to generate for one entity. */
export interface EntitySpec {
    count?: number;
    attributes?: Record<string, AttributeDomain>;
}

/** The whole spec. */
export interface DataSpec {
    scale?: number;
    seed?: number;
    entities?: Record<string, EntitySpec>;
}

const SPEC_CODE = 'data.spec';

/** Reads a spec file and checks it against the model; throws a `KvmodError` (`data.spec`) listing problems. */
export async function readDataSpec(file: string, model: RuntimeModel): Promise<DataSpec> {
    const document = await readJsonDocument(file, schema, SPEC_CODE);
    const problems = checkDataSpec(document, model);
    if (problems.length > 0)
        throw new KvmodError(problems.map((p) => `${file}:${p}`).join('\n'), { code: SPEC_CODE, path: file });
    return document.value as DataSpec;
}

/** The semantic problems of a schema-valid spec, as `line:col: message`. */
function checkDataSpec(document: JsonDocument, model: RuntimeModel): string[] {
    const spec = document.value as DataSpec;
    const problems: string[] = [];
    const report = (path: (string | number)[], message: string, key = false) => {
        const { line, column } = document.positionOf(path, key);
        problems.push(`${line}:${column}: ${message}`);
    };
    for (const [entityName, entitySpec] of Object.entries(spec.entities ?? {})) {
        const entity = model.entities.get(entityName);
        if (!entity) {
            const hint = didYouMeanSentence(didYouMean(entityName, model.entities.keys()));
            report(
                ['entities', entityName],
                `unknown entity '${escapeControls(entityName)}'.${hint ? ` ${hint.trim()}` : ''}`,
                true,
            );
            continue;
        }
        for (const [attributeName, domain] of Object.entries(entitySpec.attributes ?? {})) {
            const path = ['entities', entityName, 'attributes', attributeName];
            const attribute = entity.attributes.find((a) => a.name === attributeName);
            if (!attribute) {
                const names = entity.attributes.filter((a) => !a.isId).map((a) => a.name);
                const hint = didYouMeanSentence(didYouMean(attributeName, names));
                report(
                    path,
                    `entity ${entityName} has no attribute '${escapeControls(attributeName)}'.${hint ? ` ${hint.trim()}` : ''}`,
                    true,
                );
                continue;
            }
            if (attribute.isId) {
                report(
                    path,
                    `'${attributeName}' is the identifier of ${entityName}: identifiers are generated unique`,
                    true,
                );
                continue;
            }
            for (const problem of domainProblems(attribute, domain)) report([...path, ...problem.key], problem.message);
        }
    }
    return problems;
}

/** What is wrong with a domain for an attribute's type, with the key each problem is at. */
function domainProblems(
    attribute: RuntimeAttribute,
    domain: AttributeDomain,
): { key: (string | number)[]; message: string }[] {
    const problems: { key: (string | number)[]; message: string }[] = [];
    const kind = describeType(attribute);
    if (domain.values && (domain.min !== undefined || domain.max !== undefined)) {
        problems.push({
            key: ['values'],
            message: `give '${attribute.name}' either values or a min/max range, not both`,
        });
    }
    (domain.values ?? []).forEach((value, index) => {
        if (!fitsType(value, attribute)) {
            problems.push({
                key: ['values', index],
                message: `value ${index + 1} of '${attribute.name}', ${quoteText(value)}, is not ${kind}`,
            });
        }
    });
    for (const bound of ['min', 'max'] as const) {
        const value = domain[bound];
        if (value === undefined) continue;
        if (attribute.type === 'text' || attribute.type === 'boolean') {
            problems.push({
                key: [bound],
                message: `'${attribute.name}' is ${attribute.type}: give its values, not a range`,
            });
        } else if (!fitsType(value, attribute)) {
            problems.push({
                key: [bound],
                message: `${bound} of '${attribute.name}', ${quoteText(value)}, is not ${kind}`,
            });
        }
    }
    if (problems.length === 0 && domain.min !== undefined && domain.max !== undefined && domain.min > domain.max) {
        problems.push({ key: ['min'], message: `min of '${attribute.name}' is above its max` });
    }
    return problems;
}

function describeType(attribute: RuntimeAttribute): string {
    switch (attribute.type) {
        case 'int':
            return 'an integer';
        case 'float':
            return 'a number';
        case 'boolean':
            return 'true or false';
        case 'date':
            return 'a date YYYY-MM-DD';
        case 'time':
            return 'a time HH:MM:SS';
        case 'datetime':
            return 'a datetime YYYY-MM-DDTHH:MM:SS';
        default:
            return 'a string';
    }
}

/** Whether a value is a value of the attribute's type, as instance data would hold it. */
export function fitsType(value: SpecValue, attribute: RuntimeAttribute): boolean {
    switch (attribute.type) {
        case 'int':
            return typeof value === 'number' && Number.isInteger(value);
        case 'float':
            return typeof value === 'number' && Number.isFinite(value);
        case 'boolean':
            return typeof value === 'boolean';
        case 'date':
        case 'time':
        case 'datetime':
            return (
                typeof value === 'string' &&
                new RegExp(TEMPORAL_PATTERNS[attribute.type]).test(value) &&
                (attribute.type === 'time' || startsWithCalendarDate(value))
            );
        default:
            return typeof value === 'string';
    }
}
