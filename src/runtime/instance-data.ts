/**
 * Instance data: the JSON file of objects per entity that `kvmod load` and `kvmod verify` read
 * (documented in `schemas/instance-data.md`). Its JSON Schema is derived from the PIDM model; after the
 * schema, referential checks find dangling, duplicate and repeated identifiers. Every problem names the
 * entity, the object (index and id) and the field, so a user can find it in a file of thousands of rows.
 */
import { statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ErrorObject } from 'ajv/dist/2020.js';
import { startsWithCalendarDate } from '../language/common/calendar-date.js';
import type { LogicalType } from '../language/pidm/pidm-semantics.js';
import { KvmodError } from '../pipeline/errors.js';
import {
    decodeUtf8,
    findJsonSyntaxError,
    findJsonTextProblems,
    formatTextProblems,
    locateJsonValue,
    nonUtf8Message,
    quoteText,
    textPosition,
} from '../pipeline/json-text.js';
import type { RuntimeEntity, RuntimeModel } from './runtime-model.js';

/** A value of an attribute (ISO strings for date/time/datetime) or a reference (identifiers). */
export type InstanceValue = string | number | boolean | null | (string | number)[];

/** One object of an entity: attribute values and references by identifier. */
export type InstanceObject = Record<string, InstanceValue>;

/** Instance data: objects per entity name. */
export type InstanceData = Record<string, InstanceObject[]>;

/** At most this many problems are reported: a systematic mistake must not print a million lines. */
export const MAX_REPORTED_DATA_ERRORS = 50;

const DATE = '(\\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])';
const TIME = '([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d';
/** Patterns of the ISO forms instance data carries (calendar validity is checked after the schema). */
export const TEMPORAL_PATTERNS: Record<'date' | 'time' | 'datetime', string> = {
    date: `^${DATE}$`,
    time: `^${TIME}$`,
    datetime: `^${DATE}T${TIME}$`,
};

/** The JSON Schema (2020-12) of instance data for a model. */
export function instanceDataSchema(model: RuntimeModel): Record<string, unknown> {
    const properties: Record<string, unknown> = {};
    for (const entity of model.entities.values()) {
        properties[entity.name] = { type: 'array', items: { $ref: `#/$defs/${entity.name}` } };
    }
    const defs: Record<string, unknown> = {};
    for (const entity of model.entities.values()) defs[entity.name] = objectSchema(entity, model);
    return {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        title: 'kvmod instance data',
        description: 'Objects per entity; references hold identifiers of the target entity.',
        type: 'object',
        properties,
        additionalProperties: false,
        $defs: defs,
    };
}

function objectSchema(entity: RuntimeEntity, model: RuntimeModel): Record<string, unknown> {
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    for (const attribute of entity.attributes) {
        properties[attribute.name] = valueSchema(attribute.type);
        required.push(attribute.name);
    }
    for (const reference of entity.references) {
        const target = model.entities.get(reference.target);
        const idSchema = target && isNumeric(target.idType) ? { type: ['string', 'number'] } : { type: 'string' };
        if (reference.kind === 'one') {
            properties[reference.name] = idSchema;
            required.push(reference.name);
        } else if (reference.kind === 'optional') {
            properties[reference.name] = { anyOf: [idSchema, { type: 'null' }] };
        } else {
            const list: Record<string, unknown> = { type: 'array', items: idSchema };
            if (reference.minItems > 0) list.minItems = reference.minItems;
            if (reference.maxItems !== undefined) list.maxItems = reference.maxItems;
            properties[reference.name] = list;
            if (reference.minItems > 0) required.push(reference.name);
        }
    }
    return { type: 'object', properties, required, additionalProperties: false };
}

function isNumeric(type: LogicalType): boolean {
    return type === 'int' || type === 'float';
}

/** The schema of one attribute value. */
function valueSchema(type: LogicalType): Record<string, unknown> {
    switch (type) {
        case 'int':
            return { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };
        case 'float':
            // A JSON number too large for a double (`1e400`) parses to Infinity, which JSON Schema's `number` takes;
            // no engine can store it (the write would stop mid-load), so the bounds refuse it before anything is written.
            return { type: 'number', minimum: -Number.MAX_VALUE, maximum: Number.MAX_VALUE };
        case 'boolean':
            return { type: 'boolean' };
        case 'date':
        case 'time':
        case 'datetime':
            return { type: 'string', pattern: TEMPORAL_PATTERNS[type] };
        default:
            return { type: 'string' };
    }
}

/** The canonical identity of an identifier value: references compare by it (`7` and `"7"` are one id). */
export function identityOf(value: unknown): string {
    return typeof value === 'string' ? value : String(value);
}

/** Where an object sits in a data file, for messages: `Passenger[12] (id "P12")`. */
export function objectLocation(entity: string, index: number, id: unknown): string {
    return id === undefined || id === null
        ? `${entity}[${index}]`
        : `${entity}[${index}] (id ${quoteText(identityOf(id))})`;
}

/** Where a value of the data is, for a message: `file:line:col` given the text, else `file`. */
type Locate = (path: readonly (string | number)[]) => string;

/** A compiled check of one schema: true when the value fits it. */
type SchemaCheck = (value: unknown) => boolean;

/** How `fitsValue` checks one field of an object (a schema of `objectSchema`, read from the model). */
const TEXT = 0;
const INT = 1;
const FLOAT = 2;
const BOOLEAN = 3;
const PATTERN = 4;
const ID = 5;
const OPTIONAL_ID = 6;
const ID_LIST = 7;

/** One field of an entity's objects as its schema (`objectSchema`) describes it. */
interface FieldShape {
    name: string;
    kind: number;
    required: boolean;
    /** Date, time and datetime strings (`TEMPORAL_PATTERNS`). */
    pattern: RegExp | undefined;
    /** Identifiers of a numeric target may be numbers too. */
    numericIds: boolean;
    /** Elements of a list of identifiers. */
    minItems: number;
    maxItems: number;
}

/** The shape of an attribute's value, as `valueSchema` describes its type. */
function attributeShape(name: string, type: LogicalType): FieldShape {
    const kind =
        type === 'int'
            ? INT
            : type === 'float'
              ? FLOAT
              : type === 'boolean'
                ? BOOLEAN
                : type === 'date' || type === 'time' || type === 'datetime'
                  ? PATTERN
                  : TEXT;
    const pattern = kind === PATTERN ? new RegExp(TEMPORAL_PATTERNS[type as 'date'], 'u') : undefined;
    return { name, kind, required: true, pattern, numericIds: false, minItems: 0, maxItems: Infinity };
}

const TYPE_SHAPES = new Map<LogicalType, FieldShape>();

/**
 * True when a value fits an attribute type as a data file's schema has it (calendar validity aside, which
 * `startsWithCalendarDate` checks): the one rule `load` and the entity operations share.
 */
export function fitsAttributeType(type: LogicalType, value: unknown): boolean {
    let shape = TYPE_SHAPES.get(type);
    if (shape === undefined) TYPE_SHAPES.set(type, (shape = attributeShape('', type)));
    return fitsValue(value, shape);
}

/** The model's schema (`instanceDataSchema`) as per-entity field lists, checked on the objects' one pass. */
interface ModelShapes {
    /** True when the top level fits: an object whose keys are entities, each an array (its objects are not looked at). */
    fitsTop(data: unknown): boolean;
    fields: Map<string, FieldShape[]>;
}

/**
 * `instanceDataSchema`'s schema read from the model, as `fitsObject` checks it: true exactly where ajv finds an
 * object valid against its entity's schema (the test compares them), false where it does not or may not (ajv then
 * decides). Undefined for a model whose schema it cannot read (a field named twice, which validation refuses:
 * `pidm.duplicate-member`): ajv checks such data alone.
 */
function modelShapes(model: RuntimeModel): ModelShapes | undefined {
    const fields = new Map<string, FieldShape[]>();
    const shape = (name: string, kind: number, required: boolean, more: Partial<FieldShape> = {}): FieldShape => ({
        name,
        kind,
        required,
        pattern: undefined,
        numericIds: false,
        minItems: 0,
        maxItems: Infinity,
        ...more,
    });
    for (const entity of model.entities.values()) {
        const list: FieldShape[] = [];
        for (const attribute of entity.attributes) list.push(attributeShape(attribute.name, attribute.type));
        for (const reference of entity.references) {
            const target = model.entities.get(reference.target);
            const numericIds = target !== undefined && isNumeric(target.idType);
            if (reference.kind === 'one') list.push(shape(reference.name, ID, true, { numericIds }));
            else if (reference.kind === 'optional')
                list.push(shape(reference.name, OPTIONAL_ID, false, { numericIds }));
            else
                list.push(
                    shape(reference.name, ID_LIST, reference.minItems > 0, {
                        numericIds,
                        minItems: reference.minItems,
                        maxItems: reference.maxItems ?? Infinity,
                    }),
                );
        }
        if (new Set(list.map((field) => field.name)).size !== list.length) return undefined;
        fields.set(entity.name, list);
    }
    const names = [...fields.keys()];
    return {
        fields,
        fitsTop(data) {
            if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
            const top = data as Record<string, unknown>;
            let present = 0;
            for (let e = 0; e < names.length; e++) {
                const objects = top[names[e]];
                if (objects === undefined) continue;
                if (!Array.isArray(objects)) return false;
                present++;
            }
            return present === keyCount(top);
        },
    };
}

/**
 * The model's schema (`instanceDataSchema`) checked as the data check does on its one pass over the objects: true
 * exactly when ajv finds the data valid (the test compares them). Undefined where `modelShapes` is.
 */
export function modelCheck(model: RuntimeModel): SchemaCheck | undefined {
    const shapes = modelShapes(model);
    if (shapes === undefined) return undefined;
    return (data) => {
        if (!shapes.fitsTop(data)) return false;
        for (const [entity, fields] of shapes.fields) {
            const objects = (data as InstanceData)[entity] ?? [];
            for (let index = 0; index < objects.length; index++) if (!fitsObject(objects[index], fields)) return false;
        }
        return true;
    };
}

/** The enumerable keys of an object (as ajv's `additionalProperties` sees them). */
function keyCount(object: object): number {
    let count = 0;
    for (const _key in object) count++;
    return count;
}

/**
 * True when an object fits its entity's fields: a plain object holding every required field, no other key, and
 * values as `fitsValue` checks them. A key whose value is undefined (not from JSON) is left to ajv.
 */
function fitsObject(object: unknown, fields: readonly FieldShape[]): boolean {
    if (typeof object !== 'object' || object === null || Array.isArray(object)) return false;
    const values = object as Record<string, unknown>;
    let present = 0;
    for (let f = 0; f < fields.length; f++) {
        const field = fields[f];
        const value = values[field.name];
        if (value === undefined) {
            if (field.required) return false;
            continue;
        }
        if (!fitsValue(value, field)) return false;
        present++;
    }
    // Every key present was a field's: an inherited value (`toString`) fits no field, so it is not counted.
    return present === keyCount(values);
}

/**
 * `objectSchema`'s schema of one field, as ajv reads it with `strict: false` (no `strictNumbers`): any number is a
 * `number` (`1e400` parses to Infinity, which the float bounds refuse), an `integer` has no fraction.
 */
function fitsValue(value: unknown, field: FieldShape): boolean {
    switch (field.kind) {
        case TEXT:
            return typeof value === 'string';
        case INT:
            return (
                typeof value === 'number' &&
                !(value % 1) &&
                value >= Number.MIN_SAFE_INTEGER &&
                value <= Number.MAX_SAFE_INTEGER
            );
        case FLOAT:
            return typeof value === 'number' && value >= -Number.MAX_VALUE && value <= Number.MAX_VALUE;
        case BOOLEAN:
            return typeof value === 'boolean';
        case PATTERN:
            return typeof value === 'string' && field.pattern!.test(value);
        case ID:
            return typeof value === 'string' || (field.numericIds && typeof value === 'number');
        case OPTIONAL_ID:
            return value === null || typeof value === 'string' || (field.numericIds && typeof value === 'number');
        default: {
            if (!Array.isArray(value) || value.length < field.minItems || value.length > field.maxItems) return false;
            for (let i = 0; i < value.length; i++) {
                const element: unknown = value[i];
                if (typeof element !== 'string' && !(field.numericIds && typeof element === 'number')) return false;
            }
            return true;
        }
    }
}

/**
 * Checks instance data against the model: the schema first, then (when the shapes are right)
 * calendar validity, duplicate identifiers, dangling references and repeated elements of one reference.
 * Returns readable messages prefixed with `file`, at most MAX_REPORTED_DATA_ERRORS (plus a count).
 */
export async function validateInstanceData(model: RuntimeModel, data: unknown, file = 'data'): Promise<string[]> {
    return (await checkInstanceData(model, data, file)).problems;
}

/**
 * `validateInstanceData`'s check, and the index of the objects by identity it makes on the way (what
 * `indexInstanceData` makes; complete when there are no problems).
 */
async function checkInstanceData(
    model: RuntimeModel,
    data: unknown,
    file: string,
    locate: Locate = () => file,
): Promise<{ problems: string[]; index: InstanceIndex }> {
    // Data that fits needs no ajv: the model's shapes are checked on the objects' one pass (`modelShapes`). Data that
    // does not fit is checked by ajv, which finds the errors. ajv is loaded then only: valid data never pays for
    // loading it at start-up.
    const shapes = modelShapes(model);
    if (shapes !== undefined && shapes.fitsTop(data)) {
        const checked = checkObjects(model, data as InstanceData, file, shapes, locate);
        if (checked !== undefined) return checked;
    }
    const schema = instanceDataSchema(model);
    // ajv is CommonJS: its `module.exports` (the default export, under Node and in the CLI bundle alike) carries
    // the class; a named export of a dynamic import exists only where Node's lexer finds it, not in a bundle.
    const { Ajv2020 } = (await import('ajv/dist/2020.js')).default;
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
    if (!validate(data)) {
        const problems: string[] = [];
        for (const error of validate.errors ?? []) problems.push(`${file}: ${describeSchemaError(error, data, model)}`);
        return { problems: cap(dedupe(problems)), index: new Map() };
    }
    return checkObjects(model, data as InstanceData, file, undefined, locate)!;
}

/**
 * The checks after the schema: duplicate identifiers, calendar dates, dangling references and repeated elements
 * of one reference, with the index of the objects by identity. Given `shapes`, each object's shape is checked on
 * the same pass, and undefined is returned at the first that does not fit (ajv then finds the errors).
 */
function checkObjects(
    model: RuntimeModel,
    typed: InstanceData,
    file: string,
    shapes: ModelShapes | undefined,
    locate: Locate,
): { problems: string[]; index: InstanceIndex } | undefined {
    const problems: string[] = [];
    // The objects of each entity by identity: the identifiers seen, and the index a load follows references with.
    const ids: InstanceIndex = new Map();
    // One function per entity's loop: a loop nested in the entities' one leaves its optimized code at each entity's end.
    for (const entity of model.entities.values()) {
        const fields = shapes === undefined ? undefined : shapes.fields.get(entity.name);
        const seen = indexObjects(entity, typed[entity.name] ?? [], fields, file, problems, locate);
        if (seen === undefined) return undefined;
        ids.set(entity.name, seen);
    }
    for (const entity of model.entities.values()) {
        if (entity.references.length > 0) checkReferences(entity, typed[entity.name] ?? [], ids, file, problems);
    }
    return { problems: cap(problems), index: ids };
}

/**
 * An entity's objects by identity, with the problems of their identifiers and dates; given `fields`, undefined at
 * the first object whose shape does not fit them.
 */
function indexObjects(
    entity: RuntimeEntity,
    objects: InstanceObject[],
    fields: readonly FieldShape[] | undefined,
    file: string,
    problems: string[],
    locate: Locate,
): Map<string, InstanceObject> | undefined {
    const seen = new Map<string, InstanceObject>();
    // Only dates carry a check the schema's pattern cannot make (the day exists in its month).
    const dated = entity.attributes
        .filter((attribute) => attribute.type === 'date' || attribute.type === 'datetime')
        .map((attribute) => attribute.name);
    const idName = entity.idName;
    let firsts: Map<string, number> | undefined;
    // Index loops, not `entries()`: these run once per object of a data file of hundreds of thousands.
    for (let index = 0; index < objects.length; index++) {
        const object = objects[index];
        if (fields !== undefined && !fitsObject(object, fields)) return undefined;
        const id = identityOf(object[idName]);
        // An empty identifier makes keys that end at their prefix (and no RediSearch document): refused for every target.
        if (id === '')
            problems.push(
                `${locate([entity.name, index, idName])}: ${objectLocation(entity.name, index, undefined)}.${idName}: the identifier is empty; every object needs one (its keys and the references to it are made of it)`,
            );
        // One lookup per object: an id seen before leaves the set's size as it was. Where each id first appears
        // is worked out only from the first duplicate on (they are rare).
        const before = seen.size;
        seen.set(id, object);
        if (seen.size === before || firsts !== undefined) {
            if (firsts === undefined) {
                firsts = new Map<string, number>();
                for (let earlier = 0; earlier < index; earlier++) {
                    const other = identityOf(objects[earlier][idName]);
                    if (!firsts.has(other)) firsts.set(other, earlier);
                }
            }
            const first = firsts.get(id);
            if (first === undefined) firsts.set(id, index);
            else
                problems.push(
                    `${file}: ${objectLocation(entity.name, index, id)}.${idName}: duplicate id ${quoteText(id)} (first at ${entity.name}[${first}])`,
                );
        }
        for (let d = 0; d < dated.length; d++) {
            const name = dated[d];
            const value = object[name];
            if (typeof value === 'string' && mayNotBeCalendarDate(value) && !startsWithCalendarDate(value)) {
                problems.push(
                    `${file}: ${objectLocation(entity.name, index, object[idName])}.${name}: ${quoteText(value)} is not a calendar date`,
                );
            }
        }
    }
    return seen;
}

/** The problems of an entity's references: identifiers of no object of the target, and repeated elements of a list. */
function checkReferences(
    entity: RuntimeEntity,
    objects: InstanceObject[],
    ids: InstanceIndex,
    file: string,
    problems: string[],
): void {
    const references = entity.references.map((reference) => ({
        name: reference.name,
        target: reference.target,
        targets: ids.get(reference.target) ?? new Map<string, InstanceObject>(),
    }));
    // Only a problem needs the object's location (it quotes the id): not worked out for every object.
    const where = (index: number): string => objectLocation(entity.name, index, objects[index][entity.idName]);
    for (let index = 0; index < objects.length; index++) {
        const object = objects[index];
        for (let r = 0; r < references.length; r++) {
            const reference = references[r];
            const targets = reference.targets;
            const value = object[reference.name];
            if (value === undefined || value === null) continue;
            if (Array.isArray(value)) {
                // Repeated elements are rare: a short list (most are) is searched before each element, a map
                // of the ids seen is made only for a long one.
                const length = value.length;
                const listed = length > SHORT_LIST ? new Map<string, number>() : undefined;
                for (let position = 0; position < length; position++) {
                    const element = value[position];
                    const id = identityOf(element);
                    if (!targets.has(id))
                        problems.push(
                            `${file}: ${where(index)}.${reference.name}[${position}]: unknown ${reference.target} ${quoteText(id)}`,
                        );
                    let earlier: number | undefined;
                    if (listed === undefined) {
                        for (let before = 0; before < position; before++) {
                            const other = value[before];
                            if (other === element || identityOf(other) === id) {
                                earlier = before;
                                break;
                            }
                        }
                    } else {
                        earlier = listed.get(id);
                        if (earlier === undefined) listed.set(id, position);
                    }
                    if (earlier !== undefined) {
                        problems.push(
                            `${file}: ${where(index)}.${reference.name}[${position}]: ${reference.target} ${quoteText(id)} is listed twice (first at ${reference.name}[${earlier}])`,
                        );
                    }
                }
            } else {
                const id = identityOf(value);
                if (!targets.has(id))
                    problems.push(
                        `${file}: ${where(index)}.${reference.name}: unknown ${reference.target} ${quoteText(id)}`,
                    );
            }
        }
    }
}

/** Lists of at most this many identifiers are searched for a repeated one without a map. */
const SHORT_LIST = 16;

/**
 * False when a value that matched the date (or datetime) pattern certainly is a calendar date: the pattern admits
 * months 01–12 and days 01–31, and days 01–28 exist in every month of every year but 0000, so only year 0000 and days
 * 29–31 need the calendar rule (`startsWithCalendarDate`). Reads the digits where the pattern put them (`YYYY-MM-DD`).
 */
function mayNotBeCalendarDate(value: string): boolean {
    const tens = value.charCodeAt(8);
    return tens > 0x32 || (tens === 0x32 && value.charCodeAt(9) === 0x39) || value.startsWith('0000'); // 3x, 29
}

/** Turns an ajv error into `Entity[i] (id "x").field[j]: message`. */
function describeSchemaError(error: ErrorObject, data: unknown, model: RuntimeModel): string {
    const segments = error.instancePath
        .split('/')
        .slice(1)
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    let location = '(top level)';
    if (segments.length >= 1) {
        const [entity, indexText, field, ...rest] = segments;
        if (indexText === undefined) location = entity;
        else {
            const index = Number(indexText);
            const object = ((data as Record<string, unknown[]>)[entity] ?? [])[index];
            const idName = model.entities.get(entity)?.idName;
            const id =
                idName && object && typeof object === 'object'
                    ? (object as Record<string, unknown>)[idName]
                    : undefined;
            location = objectLocation(entity, index, id);
            if (field !== undefined) location += `.${field}`;
            for (const part of rest) location += /^\d+$/.test(part) ? `[${part}]` : `.${part}`;
        }
    }
    if (error.keyword === 'required')
        return `${location}.${String((error.params as { missingProperty: string }).missingProperty)}: is missing`;
    return `${location}: ${schemaMessage(error)}`;
}

function schemaMessage(error: ErrorObject): string {
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
        case 'additionalProperties':
            return error.instancePath === ''
                ? `unknown entity ${quoteText(String(params.additionalProperty))}`
                : `unknown field ${quoteText(String(params.additionalProperty))}`;
        case 'type':
            return `must be ${String(params.type).replace(',', ' or ')}`;
        case 'pattern':
            return `must be ${patternName(String(params.pattern))}`;
        case 'minItems':
            return `must list at least ${params.limit} identifiers`;
        case 'maxItems':
            return `must list at most ${params.limit} identifiers`;
        case 'anyOf':
            return 'must be an identifier or null';
        case 'minimum':
        case 'maximum':
            // The float bounds (see `valueSchema`): only a number JSON.parse made infinite is beyond them.
            return Math.abs(Number(params.limit)) === Number.MAX_VALUE
                ? 'must be a finite number (this one is too large for a float)'
                : (error.message ?? error.keyword);
        default:
            return error.message ?? error.keyword;
    }
}

function patternName(pattern: string): string {
    if (pattern === TEMPORAL_PATTERNS.date) return 'a date YYYY-MM-DD';
    if (pattern === TEMPORAL_PATTERNS.time) return 'a time HH:MM:SS';
    if (pattern === TEMPORAL_PATTERNS.datetime) return 'a datetime YYYY-MM-DDTHH:MM:SS';
    return `a string matching ${pattern}`;
}

function dedupe(lines: string[]): string[] {
    return [...new Set(lines)];
}

function cap(lines: string[]): string[] {
    if (lines.length <= MAX_REPORTED_DATA_ERRORS) return lines;
    return [
        ...lines.slice(0, MAX_REPORTED_DATA_ERRORS),
        `… and ${lines.length - MAX_REPORTED_DATA_ERRORS} more problems`,
    ];
}

/** Reads and checks a data file; throws a KvmodError listing the problems (or the JSON syntax error). */
export async function readInstanceData(path: string, model: RuntimeModel): Promise<InstanceData> {
    return (await readIndexedInstanceData(path, model)).data;
}

/** Checked instance data and its objects by identity. */
export interface IndexedInstanceData {
    data: InstanceData;
    /** What `indexInstanceData` makes of the data (made by the check, which finds every identifier anyway). */
    index: InstanceIndex;
}

/** `readInstanceData`, with the data's index (`indexInstanceData`). */
export async function readIndexedInstanceData(path: string, model: RuntimeModel): Promise<IndexedInstanceData> {
    return await parseIndexedInstanceData(await readInstanceText(path), model, path);
}

/**
 * Starts reading a data file now, to parse and check it when the model is there (a load reads it while the model
 * loads): `readIndexedInstanceData` in two steps. A failure to read is reported by the check only, never unhandled
 * (a model error comes first). The text is not kept once the check has it (it is twice the file's size).
 */
export function readInstanceDataAhead(path: string): (model: RuntimeModel) => Promise<IndexedInstanceData> {
    // Only a regular file is read ahead: opening a FIFO or a terminal waits for whoever writes it, and a model error
    // must end the run at once; anything else is read when the model is there, as `readIndexedInstanceData` does.
    let reading: Promise<string> | undefined = isRegularFile(path) ? readInstanceText(path) : undefined;
    reading?.catch(() => undefined);
    let checked = false;
    return async (model) => {
        if (checked) throw new Error(`${path} was read ahead once and is checked once`);
        checked = true;
        const text = reading ?? readInstanceText(path);
        reading = undefined;
        return await parseIndexedInstanceData(await text, model, path);
    };
}

function isRegularFile(path: string): boolean {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
}

/**
 * The text of a data file (what `readIndexedInstanceData` parses and checks): a file that cannot be read is a
 * KvmodError (`io.unreadable`). A load reads it while the model is loaded.
 */
export async function readInstanceText(path: string): Promise<string> {
    try {
        // Decoded at once, not as `readFile(path, 'utf8')` does (chunk by chunk, joined into a string JSON.parse must
        // flatten first).
        const bytes = await readWhole(path);
        let decoded: ReturnType<typeof decodeUtf8>;
        try {
            decoded = decodeUtf8(bytes);
        } catch {
            // Longer than V8's longest string (2^29 - 24 characters).
            throw new Error(
                `too large (${Math.round(bytes.length / 1024 ** 2)} MB): a data file is read as one string, at most about 512 MB`,
            );
        }
        if ('text' in decoded) return decoded.text;
        // Decoded anyway, the bytes would be stored as U+FFFD: refused where the first one is.
        const { line, column } = textPosition(decoded.before, decoded.before.length);
        throw new KvmodError(`${path}:${line}:${column}: ${nonUtf8Message(bytes[decoded.badByte])}`, {
            code: 'data.encoding',
            path,
        });
    } catch (error) {
        if (error instanceof KvmodError) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        throw new KvmodError(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`, {
            code: 'io.unreadable',
            path,
        });
    }
}

/**
 * The bytes of a file, in one read where it is a regular file: `readFile` reads 512 KB at a time, each read waiting
 * for the event loop, so a file read while the model loads (a load's start) finished only after it. Anything else
 * (a pipe, a file larger than one read can take, one that changed size while read) is read by the handle's
 * `readFile`, whose errors are the messages.
 */
async function readWhole(path: string): Promise<Buffer> {
    const handle = await open(path, 'r');
    try {
        const stats = await handle.stat();
        if (!stats.isFile() || stats.size === 0 || stats.size > MAX_SINGLE_READ) return await handle.readFile();
        const bytes = Buffer.allocUnsafe(stats.size);
        let filled = 0;
        while (filled < bytes.length) {
            const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled);
            if (bytesRead === 0) break;
            filled += bytesRead;
        }
        const more = filled === bytes.length ? (await handle.read(Buffer.alloc(1), 0, 1, filled)).bytesRead : 0;
        // Reads at a position leave the handle's at the start: `readFile` reads it all again.
        return filled === bytes.length && more === 0 ? bytes : await handle.readFile();
    } finally {
        await handle.close();
    }
}

/** The largest file `readWhole` reads itself (`readFile` refuses a larger one with its own message). */
const MAX_SINGLE_READ = 2 ** 31 - 1;

/** Parses and checks data text (as `readInstanceData`, for in-memory use). */
export async function parseInstanceData(text: string, model: RuntimeModel, path = 'data'): Promise<InstanceData> {
    return (await parseIndexedInstanceData(text, model, path)).data;
}

/** `parseInstanceData`, with the data's index (`indexInstanceData`). */
export async function parseIndexedInstanceData(
    text: string,
    model: RuntimeModel,
    path: string,
): Promise<IndexedInstanceData> {
    // A byte-order mark is no data (json-text.ts); one read from a file is gone already.
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    let data: unknown;
    try {
        data = JSON.parse(text);
    } catch {
        const error = findJsonSyntaxError(text);
        throw new KvmodError(formatTextProblems(text, path, [error]), { code: error.code, path });
    }
    // What JSON.parse takes but alters (a lone surrogate) or drops (a repeated key), refused before anything is written.
    const altered = findJsonTextProblems(text);
    if (altered.length > 0)
        throw new KvmodError(formatTextProblems(text, path, altered), { code: altered[0].code, path });
    const locate: Locate = (at) => {
        const { line, column } = textPosition(text, locateJsonValue(text, at));
        return `${path}:${line}:${column}`;
    };
    const { problems, index } = await checkInstanceData(model, data, path, locate);
    if (problems.length > 0)
        throw new KvmodError(`${path} does not fit the model:\n${problems.join('\n')}`, { code: 'data.invalid', path });
    return { data: data as InstanceData, index };
}

/** Objects of every entity by identity, for following references. */
export type InstanceIndex = Map<string, Map<string, InstanceObject>>;

/** Indexes checked data by entity and identity. */
export function indexInstanceData(model: RuntimeModel, data: InstanceData): InstanceIndex {
    const index: InstanceIndex = new Map();
    for (const entity of model.entities.values()) {
        const byId = new Map<string, InstanceObject>();
        const objects = data[entity.name] ?? [];
        for (let i = 0; i < objects.length; i++) byId.set(identityOf(objects[i][entity.idName]), objects[i]);
        index.set(entity.name, byId);
    }
    return index;
}
