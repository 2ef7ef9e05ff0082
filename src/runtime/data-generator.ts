/**
 * Synthetic instance data for a model: consistent (every `[1]` resolves, no duplicate ids), deterministic
 * for a seed, and unkind to generated code: texts with spaces, punctuation, quotes, commas, Unicode,
 * English stopwords and empty strings; dates over 1950–2040; lists of every size including empty; values
 * drawn from small pools so that filters match several rows.
 */
import type { LogicalType } from '../language/pidm/pidm-semantics.js';
import type { AttributeDomain, DataSpec, SpecValue } from './data-spec.js';
import type { InstanceData, InstanceObject } from './instance-data.js';
import type { RuntimeAttribute, RuntimeEntity, RuntimeModel, RuntimeReference } from './runtime-model.js';

/** Options of `generateInstanceData`. */
export interface GenerateOptions {
    /** Objects per entity. */
    scale: number;
    /** Seed of the pseudo-random generator: same seed, same data. */
    seed: number;
    /** Per-entity counts and attribute domains (see data-spec.ts); `scale` is the count of the others. */
    spec?: DataSpec;
}

/** A small, fast, seedable generator (mulberry32): the same seed gives the same sequence on every platform. */
export class SeededRandom {
    private state: number;
    constructor(seed: number) {
        this.state = (Math.trunc(seed) ^ 0x9e3779b9) >>> 0;
    }
    /** A float in [0, 1). */
    next(): number {
        this.state = (this.state + 0x6d2b79f5) >>> 0;
        let t = this.state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    }
    /** An integer in [low, high]. */
    int(low: number, high: number): number {
        return low + Math.floor(this.next() * (high - low + 1));
    }
    /** One element of a non-empty list. */
    pick<T>(items: readonly T[]): T {
        return items[Math.floor(this.next() * items.length)];
    }
    /** `count` distinct elements, in random order. */
    sample<T>(items: readonly T[], count: number): T[] {
        return this.sampleIndexes(items.length, count).map((index) => items[index]);
    }
    /**
     * `count` distinct indexes below `length`, in random order: the first `count` steps of a Fisher–Yates shuffle
     * of 0 … length-1, with only the moved positions kept, so a draw costs its count, not the length (a list of
     * references drawn from millions of identifiers).
     */
    sampleIndexes(length: number, count: number): number[] {
        const moved = new Map<number, number>();
        const drawn: number[] = [];
        for (let i = 0; i < Math.min(count, length); i++) {
            const j = i + Math.floor(this.next() * (length - i));
            const atJ = moved.get(j) ?? j;
            // Position i is never read again; position j now holds what i held.
            moved.set(j, moved.get(i) ?? i);
            drawn.push(atJ);
        }
        return drawn;
    }
}

/*
 * Each vocabulary holds, among its first entries (the ones small scales draw), values that differ only by the case of
 * letters of several scripts: Latin with diacritics, Greek, Cyrillic, German ß/ẞ and Turkish İ (whose lower case is
 * longer). Engines fold such case differently (RediSearch 2.x builds: ASCII only, or Unicode, or not at all when a
 * text holds İ), so `verify` sees a design that lets the engine fold.
 */
const CITIES = [
    'Paris',
    'São Paulo',
    'SÃO PAULO',
    'İstanbul',
    'İSTANBUL',
    'Москва',
    'МОСКВА',
    'Zürich',
    'Washington, D.C.',
    "'s-Hertogenbosch",
    'Saint-Étienne',
    'the Hague',
    'Los Angeles',
    'Kraków',
    'Reykjavík',
    '東京',
    'Αθήνα',
    'New York',
    'paris',
    'Ho Chi Minh City',
    'Bandar Seri Begawan',
];
const COUNTRIES = [
    'France',
    'Ελλάδα',
    'ΕΛΛΆΔΑ',
    'Türkiye',
    'TÜRKİYE',
    'Россия',
    'РОССИЯ',
    'Brazil',
    'Switzerland',
    'United States',
    'the Netherlands',
    'Côte d’Ivoire',
    'Poland',
    'Iceland',
    'Japan',
    'Bosnia and Herzegovina',
    'Korea, Republic of',
    'Åland',
    'in',
    'FRANCE',
    '',
];
const FIRST_NAMES = [
    'Mary',
    'Zoë',
    'ZOË',
    'İlker',
    'İLKER',
    'Ricky',
    'Ann',
    'Johnny',
    'José',
    'Anne-Marie',
    "D'Arcy",
    'Łukasz',
    'Ólafur',
    'Sun',
    'the',
    '',
    'Ann ',
    'ANN',
    'Björk',
];
const LAST_NAMES = [
    'Wilson',
    'Müller',
    'MÜLLER',
    'Straße',
    'STRAẞE',
    'Doe',
    "O'Brien",
    'van der Berg',
    'Smith-Jones',
    'García Márquez',
    'Nguyễn',
    'de la Cruz',
    '王',
    'Ó Súilleabháin',
    'Wilson',
    'in',
    'Doe, Jr.',
    '"Ace" Lee',
    '',
];
const URLS = [
    'https://example.com/',
    'https://example.com/a?b=c&d=e',
    'http://ex.org/path with space',
    'https://ümlaut.example/ß',
    'ftp://files.example.net/x,y',
    'https://example.com/"quoted"',
    '',
    'https://example.com/the/in/of',
];
const WORDS = [
    'the',
    'Ελληνικά',
    'ΕΛΛΗΝΙΚΆ',
    'naïve café',
    'NAÏVE CAFÉ',
    'İSTANBUL ABC',
    'İstanbul ABC',
    'ẞ',
    'ß',
    'in',
    'Foundation',
    'I, Robot',
    'best book - sanjiva',
    "Asimov's best",
    'well I disagree',
    'say "hello"',
    'semi;colon',
    'back\\slash',
    'a  b',
    ' leading space',
    'trailing space ',
    'UPPER lower',
    'upper LOWER',
    'pipe | bar',
    'braces {x} [y] (z)',
    'at@sign #hash $5 100%',
    'star* question? colon: dash-',
    'emoji 🎲',
    '中文',
    '',
    'sci-fi',
    'Sci-Fi',
    'robots',
    'future',
];
const SEXES = ['F', 'M', 'X', 'f'];
const DAY_MS = 86_400_000;
const FIRST_DAY = Date.UTC(1950, 0, 1);
const LAST_DAY = Date.UTC(2040, 11, 31);

/** The vocabulary for a text attribute, chosen by its name (cities look like cities), with nasty cases mixed in. */
function textVocabulary(attribute: string): readonly string[] {
    const name = attribute.toLowerCase();
    if (name.includes('city')) return CITIES;
    if (name.includes('country') || name.includes('nation')) return COUNTRIES;
    if (name.includes('first')) return FIRST_NAMES;
    if (name.includes('last') || name.includes('surname') || name === 'author') return LAST_NAMES;
    if (name.includes('url') || name.includes('link') || name.includes('site')) return URLS;
    if (name === 'sex' || name === 'gender') return SEXES;
    return WORDS;
}

function isoDate(ms: number): string {
    return new Date(ms).toISOString().slice(0, 10);
}

function isoTime(seconds: number): string {
    const h = Math.floor(seconds / 3600);
    const m = Math.floor((seconds % 3600) / 60);
    const s = seconds % 60;
    return [h, m, s].map((n) => String(n).padStart(2, '0')).join(':');
}

/** A fresh value of a type (pools are built from these). */
function freshValue(
    type: LogicalType,
    attribute: string,
    random: SeededRandom,
    ordinal: number,
): string | number | boolean {
    switch (type) {
        case 'int':
            return ordinal === 0 ? 0 : ordinal === 1 ? -7 : random.int(-50, 2000);
        case 'float':
            // Quarters: RediSearch 1.2 indexes most other decimals (0.1, 323.55) as a nearby 32-bit float, so `=` and
            // range bounds on them fail and `data check` refuses them; see schemas/instance-data.md.
            return ordinal === 0 ? 0 : ordinal === 1 ? -12.25 : random.int(-40000, 40000) / 4;
        case 'boolean':
            return ordinal % 2 === 0;
        case 'date':
            return ordinal === 0
                ? '1950-01-01'
                : ordinal === 1
                  ? '2040-12-31'
                  : ordinal === 2
                    ? '2000-02-29'
                    : isoDate(FIRST_DAY + random.int(0, (LAST_DAY - FIRST_DAY) / DAY_MS) * DAY_MS);
        case 'time':
            return ordinal === 0 ? '00:00:00' : ordinal === 1 ? '23:59:59' : isoTime(random.int(0, 86399));
        case 'datetime':
            return `${freshValue('date', attribute, random, ordinal)}T${freshValue('time', attribute, random, ordinal + 1)}`;
        default: {
            const vocabulary = textVocabulary(attribute);
            return ordinal < vocabulary.length ? vocabulary[ordinal] : `${random.pick(vocabulary)} ${ordinal}`;
        }
    }
}

/** A fresh value of a type within a range (bounds already checked against the type by data-spec.ts). */
function rangedValue(type: LogicalType, domain: AttributeDomain, random: SeededRandom): SpecValue {
    const { min, max } = domain;
    switch (type) {
        case 'int': {
            const low =
                typeof min === 'number' ? Math.ceil(min) : typeof max === 'number' ? Math.ceil(max) - 2000 : -50;
            const high = typeof max === 'number' ? Math.floor(max) : low + 2000;
            return random.int(low, Math.max(low, high));
        }
        case 'float': {
            const low = typeof min === 'number' ? min : typeof max === 'number' ? max - 10000 : -10000;
            const high = typeof max === 'number' ? max : low + 10000;
            // Quarters where the range holds one (see freshValue); else the bound itself.
            const [first, last] = [Math.ceil(low * 4), Math.floor(high * 4)];
            return first <= last ? random.int(first, last) / 4 : low;
        }
        case 'date': {
            const low = typeof min === 'string' ? Date.parse(`${min}T00:00:00Z`) : FIRST_DAY;
            const high = typeof max === 'string' ? Date.parse(`${max}T00:00:00Z`) : LAST_DAY;
            return isoDate(low + random.int(0, Math.max(0, (high - low) / DAY_MS)) * DAY_MS);
        }
        case 'time': {
            const seconds = (text: unknown, fallback: number) =>
                typeof text === 'string' ? text.split(':').reduce((sum, part) => sum * 60 + Number(part), 0) : fallback;
            return isoTime(random.int(seconds(min, 0), seconds(max, 86399)));
        }
        case 'datetime': {
            const low = typeof min === 'string' ? Date.parse(`${min}Z`) : FIRST_DAY;
            const high = typeof max === 'string' ? Date.parse(`${max}Z`) : LAST_DAY;
            return new Date(low + random.int(0, Math.max(0, (high - low) / 1000)) * 1000).toISOString().slice(0, 19);
        }
        default:
            return random.pick(textVocabulary(''));
    }
}

/** Whether a value lies in a domain (a WHERE literal outside the spec's domain is not generated). */
function inDomain(value: SpecValue, domain: AttributeDomain | undefined): boolean {
    if (!domain) return true;
    if (domain.values) return domain.values.includes(value);
    if (domain.min !== undefined && value < domain.min) return false;
    return domain.max === undefined || value <= domain.max;
}

/** The identifier of the n-th object (0-based) of an entity: unique, sometimes with spaces, quotes or accents. */
function identifier(entity: RuntimeEntity, type: LogicalType, n: number): string | number {
    if (type === 'int' || type === 'float') return n + 1;
    if (type === 'date') return isoDate(FIRST_DAY + n * 97 * DAY_MS);
    if (type === 'time') return isoTime(n);
    if (type === 'datetime') return `${isoDate(FIRST_DAY + n * DAY_MS)}T12:00:00`;
    const prefix = entity.name.slice(0, 2).toUpperCase();
    const number = String(n + 1).padStart(3, '0');
    switch (n % 6) {
        case 1:
            return `${prefix} ${number}`;
        case 2:
            return `${prefix}-${number}`;
        case 3:
            return `${prefix}'${number}`;
        case 4:
            return `${prefix}é${number}`;
        default:
            return `${prefix}${number}`;
    }
}

/** How many elements a multi-valued reference lists: often 0–3, sometimes more, within its bounds. */
function listSize(reference: RuntimeReference, available: number, random: SeededRandom): number {
    const wanted = random.pick([0, 0, 1, 1, 2, 2, 3, 4, 6]);
    const upper = Math.min(reference.maxItems ?? Number.POSITIVE_INFINITY, available);
    return Math.max(Math.min(wanted, upper), Math.min(reference.minItems, available));
}

/** The objects of one entity, made as they are read. */
export interface GeneratedEntity {
    /** The entity's name. */
    name: string;
    /** How many objects `objects` yields. */
    count: number;
    /** The objects, in order; read them all before the next entity's (they draw from one random sequence). */
    objects: Iterable<InstanceObject>;
}

/** Objects per entity: the spec's count, else the scale. */
function objectCount(entity: RuntimeEntity, options: GenerateOptions): number {
    return options.spec?.entities?.[entity.name]?.count ?? Math.max(1, Math.trunc(options.scale));
}

/**
 * The data of `generateInstanceData`, entity by entity and object by object, made as it is read: what stays in
 * memory is the value pools of the entity being made (`estimateGeneratorHeap`), not the data. Identifiers are
 * computed from their ordinal where a reference needs one.
 */
export function* generateInstanceEntities(model: RuntimeModel, options: GenerateOptions): Generator<GeneratedEntity> {
    const random = new SeededRandom(options.seed);
    const countOf = (name: string) => {
        const entity = model.entities.get(name);
        return entity ? objectCount(entity, options) : 0;
    };
    for (const entity of model.entities.values()) {
        const count = objectCount(entity, options);
        yield { name: entity.name, count, objects: entityObjects(model, entity, count, countOf, random, options) };
    }
}

function* entityObjects(
    model: RuntimeModel,
    entity: RuntimeEntity,
    scale: number,
    countOf: (name: string) => number,
    random: SeededRandom,
    options: GenerateOptions,
): Generator<InstanceObject> {
    const domains = options.spec?.entities?.[entity.name]?.attributes ?? {};
    const pools = new Map<string, SpecValue[]>();
    const poolOf = (attribute: RuntimeAttribute): SpecValue[] => {
        let pool = pools.get(attribute.name);
        if (!pool) {
            const domain = domains[attribute.name];
            // A pool a third the size of the entity: each value is shared by about three objects. The
            // literals the queries filter on join it, so that those queries have rows to compare.
            const size = poolSize(scale);
            const literals = (attribute.literals ?? []).filter((value) => inDomain(value, domain));
            const fresh = domain?.values
                ? []
                : Array.from({ length: size }, (_, ordinal) =>
                      domain
                          ? rangedValue(attribute.type, domain, random)
                          : freshValue(attribute.type, attribute.name, random, ordinal),
                  );
            // Each literal three times: about one object in ten holds it at the default scale.
            const wanted = [...new Set(literals)].flatMap((value) => [value, value, value]);
            pool = [...wanted, ...(domain?.values ?? []), ...fresh];
            pools.set(attribute.name, pool);
        }
        return pool;
    };
    const identifierOf = (name: string, ordinal: number) => {
        const target = model.entities.get(name)!;
        return identifier(target, target.idType, ordinal);
    };
    for (let n = 0; n < scale; n++) {
        const object: InstanceObject = {};
        for (const attribute of entity.attributes) {
            object[attribute.name] = attribute.isId ? identifierOf(entity.name, n) : random.pick(poolOf(attribute));
        }
        for (const reference of entity.references) {
            const targets = countOf(reference.target);
            const pick = () => String(identifierOf(reference.target, Math.floor(random.next() * targets)));
            if (reference.kind === 'one') {
                if (targets > 0) object[reference.name] = pick();
            } else if (reference.kind === 'optional') {
                object[reference.name] = targets > 0 && random.next() < 0.75 ? pick() : null;
            } else {
                object[reference.name] = random
                    .sampleIndexes(targets, listSize(reference, targets, random))
                    .map((ordinal) => String(identifierOf(reference.target, ordinal)));
            }
        }
        yield object;
    }
}

/** Values in an attribute's pool of fresh values, for an entity of `count` objects. */
function poolSize(count: number): number {
    return Math.max(3, Math.ceil(count / 3));
}

/**
 * Heap a pool value takes, by type, with a margin: a text is a short string made of two (a word and an ordinal), a
 * date or time a string of 8 or 10 characters, a datetime a string made of those two, a float a boxed number, an int
 * or boolean a slot.
 */
const POOL_VALUE_BYTES: Partial<Record<LogicalType, number>> & { text: number } = {
    text: 96,
    date: 48,
    time: 48,
    datetime: 112,
    float: 32,
    int: 16,
    boolean: 16,
};

/**
 * Heap the generator holds at most (the value pools of its largest entity, `generateInstanceEntities`), and that
 * entity: the data itself is made as it is read.
 */
export function estimateGeneratorHeap(
    model: RuntimeModel,
    options: GenerateOptions,
): { bytes: number; entity?: string } {
    let largest: { bytes: number; entity?: string } = { bytes: 0 };
    for (const entity of model.entities.values()) {
        const size = poolSize(objectCount(entity, options));
        let bytes = 0;
        for (const attribute of entity.attributes) {
            if (!attribute.isId) bytes += size * (POOL_VALUE_BYTES[attribute.type] ?? POOL_VALUE_BYTES.text);
        }
        if (bytes > largest.bytes) largest = { bytes, entity: entity.name };
    }
    return largest;
}

/** Generates consistent instance data for every entity of a model. */
export function generateInstanceData(model: RuntimeModel, options: GenerateOptions): InstanceData {
    const data: InstanceData = {};
    for (const entity of generateInstanceEntities(model, options)) data[entity.name] = [...entity.objects];
    return data;
}

/**
 * The text of `JSON.stringify(data, null, 1) + '\n'` for generated entities, in pieces of about `pieceLength`
 * characters: a large data set is written as it is made.
 */
export function* instanceDataJsonPieces(
    entities: Iterable<GeneratedEntity>,
    onObject?: () => void,
    pieceLength = 1 << 16,
): Generator<string> {
    let piece = '{';
    let firstEntity = true;
    for (const entity of entities) {
        piece += `${firstEntity ? '' : ','}\n ${JSON.stringify(entity.name)}: [`;
        firstEntity = false;
        let firstObject = true;
        for (const object of entity.objects) {
            // JSON escapes a line break inside a string: every line break is the layout's, indented one level more.
            piece += `${firstObject ? '' : ','}\n  ${JSON.stringify(object, null, 1).replaceAll('\n', '\n  ')}`;
            firstObject = false;
            onObject?.();
            if (piece.length >= pieceLength) {
                yield piece;
                piece = '';
            }
        }
        piece += firstObject ? ']' : '\n ]';
    }
    yield `${piece}${firstEntity ? '}' : '\n}'}\n`;
}
