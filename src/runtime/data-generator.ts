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
        const copy = [...items];
        for (let i = 0; i < Math.min(count, copy.length); i++) {
            const j = i + Math.floor(this.next() * (copy.length - i));
            [copy[i], copy[j]] = [copy[j], copy[i]];
        }
        return copy.slice(0, count);
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

/** Generates consistent instance data for every entity of a model. */
export function generateInstanceData(model: RuntimeModel, options: GenerateOptions): InstanceData {
    const defaultCount = Math.max(1, Math.trunc(options.scale));
    const countOf = (entity: RuntimeEntity) => options.spec?.entities?.[entity.name]?.count ?? defaultCount;
    const random = new SeededRandom(options.seed);
    const ids = new Map<string, (string | number)[]>();
    for (const entity of model.entities.values()) {
        ids.set(
            entity.name,
            Array.from({ length: countOf(entity) }, (_, n) => identifier(entity, entity.idType, n)),
        );
    }
    const data: InstanceData = {};
    for (const entity of model.entities.values()) {
        const scale = countOf(entity);
        const domains = options.spec?.entities?.[entity.name]?.attributes ?? {};
        const pools = new Map<string, SpecValue[]>();
        const poolOf = (attribute: RuntimeAttribute): SpecValue[] => {
            let pool = pools.get(attribute.name);
            if (!pool) {
                const domain = domains[attribute.name];
                // A pool a third the size of the entity: each value is shared by about three objects. The
                // literals the queries filter on join it, so that those queries have rows to compare.
                const size = Math.max(3, Math.ceil(scale / 3));
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
        const objects: InstanceObject[] = [];
        for (let n = 0; n < scale; n++) {
            const object: InstanceObject = {};
            for (const attribute of entity.attributes) {
                object[attribute.name] = attribute.isId ? ids.get(entity.name)![n] : random.pick(poolOf(attribute));
            }
            for (const reference of entity.references) {
                const targets = ids.get(reference.target) ?? [];
                if (reference.kind === 'one') {
                    if (targets.length > 0) object[reference.name] = String(random.pick(targets));
                } else if (reference.kind === 'optional') {
                    object[reference.name] =
                        targets.length > 0 && random.next() < 0.75 ? String(random.pick(targets)) : null;
                } else {
                    object[reference.name] = random
                        .sample(targets, listSize(reference, targets.length, random))
                        .map(String);
                }
            }
            objects.push(object);
        }
        data[entity.name] = objects;
    }
    return data;
}
