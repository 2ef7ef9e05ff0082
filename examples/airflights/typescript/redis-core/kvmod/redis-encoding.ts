// Copied by kvmod from its src/generation/shared/redis-encoding.ts: the rules of the Redis design have one source. Do not edit.
/**
 * How logical values are stored in Redis hashes and written into queries (docs/layer-contracts.md, "Value encoding
 * for Redis"). The runtime reuses these functions, so a value is encoded the same way when it is loaded,
 * when it is searched for, and when a reply is read back.
 *
 * - text: as is. Filtered text fields are TAG fields: RediSearch lower-cases (ASCII only) and trims tags,
 *   so equality on text is case-insensitive for ASCII letters and ignores surrounding spaces.
 * - int / float: plain decimal numbers, never an exponent (RediSearch rejects `1e2` in a query).
 * - boolean: 0 / 1.
 * - date → integer YYYYMMDD, time → integer HHMMSS, datetime → integer YYYYMMDDHHMMSS: numbers, so that
 *   NUMERIC fields can range and sort them, and still readable. Instance data carries ISO strings:
 *   `YYYY-MM-DD`, `HH:MM:SS` (or `HH:MM`), `YYYY-MM-DDTHH:MM:SS` (a space instead of `T` is accepted).
 *
 * A text field that an FT.AGGREGATE query sorts on also stores its sort form (`encodeSortKey`) in a companion
 * hash field: FT.AGGREGATE on RediSearch 1.2 sorts LOADed values byte-wise (`Ab` before `aa`), while FT.SEARCH
 * sorts a SORTABLE text case-folded. Sorting the folded companion makes both commands order text alike.
 */
import { isCalendarDate } from './calendar-date.js';

/** A logical KVLM type. */
export type RedisLogicalType = 'text' | 'int' | 'float' | 'boolean' | 'date' | 'time' | 'datetime';

/** A value that cannot be encoded for its type; the message names the type and the value. */
export class RedisEncodingError extends Error {
    constructor(message: string) {
        super(message);
        this.name = 'RedisEncodingError';
    }
}

/** True for the types stored as NUMERIC (everything but text). */
export function isNumericType(type: RedisLogicalType): boolean {
    return type !== 'text';
}

/** Encodes one logical value as the string stored in the hash and compared in queries. */
export function encodeRedisValue(type: RedisLogicalType, value: unknown): string {
    switch (type) {
        case 'text':
            if (typeof value === 'string') return value;
            if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
                return String(value);
            throw new RedisEncodingError(`a text value must be a string, got ${describe(value)}`);
        case 'int':
            return encodeInteger(value);
        case 'float':
            return encodeFloat(value);
        case 'boolean':
            if (value === true || value === 'true' || value === 1 || value === '1') return '1';
            if (value === false || value === 'false' || value === 0 || value === '0') return '0';
            throw new RedisEncodingError(`a boolean value must be true or false, got ${describe(value)}`);
        case 'date': {
            const m = dateParts(value, /^(\d{4})-(\d{2})-(\d{2})$/, 'date', 'YYYY-MM-DD');
            checkDate(m[0]!, m[1]!, m[2]!, value);
            return stripZeros(m.join(''));
        }
        case 'time': {
            const m = dateParts(value, /^(\d{2}):(\d{2})(?::(\d{2}))?$/, 'time', 'HH:MM:SS');
            checkTime(m[0]!, m[1]!, m[2] ?? '00', value);
            return stripZeros(m[0]! + m[1]! + (m[2] ?? '00'));
        }
        case 'datetime': {
            const m = dateParts(
                value,
                /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/,
                'datetime',
                'YYYY-MM-DDTHH:MM:SS',
            );
            checkDate(m[0]!, m[1]!, m[2]!, value);
            checkTime(m[3]!, m[4]!, m[5] ?? '00', value);
            return stripZeros(m[0]! + m[1]! + m[2]! + m[3]! + m[4]! + (m[5] ?? '00'));
        }
    }
}

/** Reads a stored value back into its logical form (numbers for int/float, booleans, ISO strings for dates). */
export function decodeRedisValue(type: RedisLogicalType, stored: string): string | number | boolean {
    switch (type) {
        case 'text':
            return stored;
        case 'int':
        case 'float': {
            const n = Number(stored);
            if (stored.trim() === '' || !Number.isFinite(n))
                throw new RedisEncodingError(`not a stored ${type}: ${JSON.stringify(stored)}`);
            return n;
        }
        case 'boolean':
            if (stored === '1') return true;
            if (stored === '0') return false;
            throw new RedisEncodingError(`not a stored boolean: ${JSON.stringify(stored)}`);
        case 'date': {
            const d = storedDigits(stored, 8, type);
            return `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`;
        }
        case 'time': {
            const d = storedDigits(stored, 6, type);
            return `${d.slice(0, 2)}:${d.slice(2, 4)}:${d.slice(4, 6)}`;
        }
        case 'datetime': {
            const d = storedDigits(stored, 14, type);
            return `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${d.slice(8, 10)}:${d.slice(10, 12)}:${d.slice(12, 14)}`;
        }
    }
}

/**
 * The sort form of a text: what RediSearch's sorting vector keeps of a SORTABLE text, so that comparing sort
 * forms byte-wise (UTF-8, = code point order) orders texts the way FT.SEARCH SORTBY does. Full Unicode case
 * folding, character by character (`É`→`é`, `ß`/`ẞ`→`ss`, `ﬀ`→`ff`, `ς`→`σ`, `K` (Kelvin)→`k`, `İ`→`i̇`);
 * no trimming, accents kept. Lower-, then upper-, then lower-casing each character gives full folding for
 * all but `ı` (dotless i folds to itself, not `i`). Measured on RediSearch 1.2 (schemas/instance-data.md).
 */
export function encodeSortKey(text: string): string {
    // Case mapping the whole text maps each character as it would alone, but for a sigma (lower-cased by what
    // follows it: a final one is ς) and the dotless ı (kept): a text without them is mapped in three native
    // passes, not a character at a time (a string per character: long texts are folded when sorted by).
    if (!/[Σσςı]/.test(text)) return text.toLowerCase().toUpperCase().toLowerCase();
    // ASCII folds to its lower case whatever surrounds it: only the other characters go one by one.
    return text.replace(/[A-Z]+|[^\0-\x7f]+/g, (run) => (run.charCodeAt(0) < 0x80 ? run.toLowerCase() : foldEach(run)));
}

/** Non-ASCII characters folded so far: a text repeats few distinct ones. */
const FOLDED = new Map<string, string>();

/** Full case folding of each character of a text that has no ASCII (see `encodeSortKey`). */
function foldEach(text: string): string {
    let out = '';
    for (const character of text) {
        let folded = FOLDED.get(character);
        if (folded === undefined) {
            folded = '';
            if (character === 'ı') folded = character;
            else for (const upper of character.toLowerCase().toUpperCase()) folded += upper.toLowerCase();
            FOLDED.set(character, folded);
        }
        out += folded;
    }
    return out;
}

/**
 * Escapes one natural-key part so that joining parts with `:` stays unambiguous: `%` → `%25`, `:` → `%3A`.
 * (`a:b` + `c` and `a` + `b:c` must not make the same key.)
 */
export function escapeKeyPart(encoded: string): string {
    return encoded.replace(/%/g, '%25').replace(/:/g, '%3A');
}

/** The natural key of a row: the collection's key prefix, then the encoded, escaped parts joined by `:`. */
export function naturalKeySuffix(parts: readonly { type: RedisLogicalType; value: unknown }[]): string {
    return parts.map((part) => escapeKeyPart(encodeRedisValue(part.type, part.value))).join(':');
}

function encodeInteger(value: unknown): string {
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'number') {
        if (!Number.isInteger(value))
            throw new RedisEncodingError(`an int value must be an integer, got ${describe(value)}`);
        return Number.isSafeInteger(value) ? String(value) : BigInt(value).toString();
    }
    if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return normaliseDigits(value.trim());
    throw new RedisEncodingError(`an int value must be an integer, got ${describe(value)}`);
}

function encodeFloat(value: unknown): string {
    let text: string;
    if (typeof value === 'number') {
        if (!Number.isFinite(value))
            throw new RedisEncodingError(`a float value must be finite, got ${describe(value)}`);
        text = String(value);
    } else if (typeof value === 'bigint') {
        return value.toString();
    } else if (typeof value === 'string' && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value.trim())) {
        text = value.trim();
    } else {
        throw new RedisEncodingError(`a float value must be a number, got ${describe(value)}`);
    }
    return toPlainDecimal(text);
}

/** Rewrites a decimal with an optional exponent (`1.5e-7`) as a plain decimal (`0.00000015`). */
export function toPlainDecimal(text: string): string {
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
    if (!m) throw new RedisEncodingError(`not a decimal number: ${JSON.stringify(text)}`);
    const sign = m[1] === '-' ? '-' : '';
    let digits = (m[2] ?? '') + (m[3] ?? '');
    let point = (m[2] ?? '').length + Number(m[4] ?? 0);
    if (point < 0) {
        digits = '0'.repeat(-point) + digits;
        point = 0;
    }
    if (point > digits.length) digits += '0'.repeat(point - digits.length);
    const whole = digits.slice(0, point).replace(/^0+/, '') || '0';
    const fraction = digits.slice(point).replace(/0+$/, '');
    const body = fraction ? `${whole}.${fraction}` : whole;
    return body === '0' ? '0' : sign + body;
}

function normaliseDigits(text: string): string {
    const negative = text.startsWith('-');
    const digits = text.replace(/^-/, '').replace(/^0+(?=\d)/, '');
    return negative && digits !== '0' ? `-${digits}` : digits;
}

function stripZeros(digits: string): string {
    return digits.replace(/^0+(?=\d)/, '');
}

function dateParts(value: unknown, pattern: RegExp, type: string, format: string): string[] {
    const text = value instanceof Date ? isoOf(value, type) : value;
    const m = typeof text === 'string' ? pattern.exec(text.trim()) : null;
    if (!m) throw new RedisEncodingError(`a ${type} value must be written ${format}, got ${describe(value)}`);
    return m.slice(1);
}

function isoOf(date: Date, type: string): string {
    const iso = date.toISOString(); // UTC: YYYY-MM-DDTHH:MM:SS.sssZ
    if (type === 'date') return iso.slice(0, 10);
    if (type === 'time') return iso.slice(11, 19);
    return iso.slice(0, 19);
}

function checkDate(year: string, month: string, day: string, original: unknown): void {
    if (!isCalendarDate(Number(year), Number(month), Number(day)))
        throw new RedisEncodingError(`not a calendar date (years 0001-9999): ${describe(original)}`);
}

function checkTime(hours: string, minutes: string, seconds: string, original: unknown): void {
    if (Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59)
        throw new RedisEncodingError(`not a time of day: ${describe(original)}`);
}

function storedDigits(stored: string, width: number, type: string): string {
    if (!/^\d+$/.test(stored) || stored.length > width)
        throw new RedisEncodingError(`not a stored ${type}: ${JSON.stringify(stored)}`);
    return stored.padStart(width, '0');
}

function describe(value: unknown): string {
    if (typeof value === 'string') return JSON.stringify(value);
    if (value instanceof Date) return value.toISOString();
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
