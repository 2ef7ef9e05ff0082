/**
 * What JSON.parse lets through or words badly in a data file, found in its text with a `line:col`: bytes that are
 * not UTF-8 (decoded, they would be stored as U+FFFD), an escaped lone surrogate (`"\ud800"`, stored as U+FFFD
 * too), a key given twice in one object (JSON.parse keeps the last, silently) and the position of a syntax error.
 * A byte-order mark is accepted and left out: RFC 8259 (§8.1) lets a parser ignore it, editors on Windows write
 * one, and it carries no data. Quoted data in messages goes through `quoteText`, so no control character from a
 * file reaches the terminal.
 */
import { isUtf8 } from 'node:buffer';
import { printParseErrorCode, visit } from 'jsonc-parser';

/** One problem of a JSON text: where (0-based offset in the text), its code and a sentence. */
export interface JsonTextProblem {
    offset: number;
    /** The offset of what it repeats, shown after the message. */
    first?: number;
    code: string;
    message: string;
}

/** At most this many problems of a text are listed. */
const MAX_TEXT_PROBLEMS = 50;

/** The UTF-8 byte-order mark. */
const BOM = [0xef, 0xbb, 0xbf];

/**
 * The text of UTF-8 bytes without a byte-order mark, or the first byte that is not UTF-8 (its offset in the bytes
 * and the text before it, for its line and column).
 */
export function decodeUtf8(bytes: Buffer): { text: string } | { badByte: number; before: string } {
    const start = bytes.length >= 3 && bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2] ? 3 : 0;
    // isUtf8 is native and refuses what a fatal TextDecoder refuses (overlong forms, surrogates, beyond U+10FFFF).
    if (isUtf8(start === 0 ? bytes : bytes.subarray(start))) return { text: bytes.toString('utf8', start) };
    const bad = firstNonUtf8Byte(bytes, start);
    return { badByte: bad, before: bytes.toString('utf8', start, bad) };
}

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629). */
function firstNonUtf8Byte(bytes: Uint8Array, from: number): number {
    let i = from;
    while (i < bytes.length) {
        const b = bytes[i];
        if (b < 0x80) {
            i++;
            continue;
        }
        let length: number;
        let low = 0x80;
        let high = 0xbf;
        if (b >= 0xc2 && b <= 0xdf) length = 2;
        else if (b >= 0xe0 && b <= 0xef) {
            length = 3;
            if (b === 0xe0) low = 0xa0; // overlong
            if (b === 0xed) high = 0x9f; // a surrogate
        } else if (b >= 0xf0 && b <= 0xf4) {
            length = 4;
            if (b === 0xf0) low = 0x90; // overlong
            if (b === 0xf4) high = 0x8f; // beyond U+10FFFF
        } else return i;
        for (let k = 1; k < length; k++) {
            const next = bytes[i + k];
            if (next === undefined || next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) return i;
        }
        i += length;
    }
    return bytes.length;
}

/** What the first byte that is not UTF-8 is, as a sentence. */
export function nonUtf8Message(byte: number | undefined): string {
    const shown =
        byte === undefined ? 'the file ends inside a character' : `byte 0x${byte.toString(16).padStart(2, '0')}`;
    return `the file is not UTF-8 text: ${shown} is not part of a UTF-8 character (save the file as UTF-8)`;
}

/** 1-based line and column (in UTF-16 units, as editors count) of an offset in a text. */
export function textPosition(text: string, offset: number): { line: number; column: number } {
    return textPositions(text, [offset])[0];
}

/** `textPosition` of several offsets, in one pass over the text. */
export function textPositions(text: string, offsets: readonly number[]): { line: number; column: number }[] {
    const order = offsets.map((_, index) => index).sort((a, b) => offsets[a] - offsets[b]);
    const positions: { line: number; column: number }[] = new Array(offsets.length);
    let line = 1;
    let lineStart = 0;
    let next = text.indexOf('\n');
    for (const index of order) {
        const offset = offsets[index];
        while (next !== -1 && next < offset) {
            line++;
            lineStart = next + 1;
            next = text.indexOf('\n', lineStart);
        }
        positions[index] = { line, column: offset - lineStart + 1 };
    }
    return positions;
}

/** Problems of a text as `path:line:col: message` lines. */
export function formatTextProblems(text: string, path: string, problems: readonly JsonTextProblem[]): string {
    const positions = textPositions(text, [
        ...problems.map((problem) => problem.offset),
        ...problems.map((problem) => problem.first ?? 0),
    ]);
    return problems
        .map((problem, i) => {
            const at = positions[i];
            const first = positions[problems.length + i];
            const then = problem.first === undefined ? '' : ` (first at ${first.line}:${first.column})`;
            return `${path}:${at.line}:${at.column}: ${problem.message}${then}`;
        })
        .join('\n');
}

/**
 * The problems JSON.parse does not report in a text it parses: escaped lone surrogates and keys repeated in one
 * object (at the second). The text must be valid JSON (JSON.parse took it): its structure is not checked again.
 * One pass; strings are skipped with `indexOf`, and only those holding a backslash are read character by character.
 */
export function findJsonTextProblems(text: string): JsonTextProblem[] {
    const problems: JsonTextProblem[] = [];
    // A raw lone surrogate cannot come from UTF-8 bytes, only from a text given in memory.
    if (!isWellFormed(text)) {
        for (let i = 0; i < text.length && problems.length < MAX_TEXT_PROBLEMS; i++) {
            const c = text.charCodeAt(i);
            if (c < 0xd800 || c > 0xdfff) continue;
            const next = text.charCodeAt(i + 1);
            if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
            else problems.push({ offset: i, code: 'data.lone-surrogate', message: loneSurrogate(c) });
        }
    }
    // The keys of each open object, by depth: the offsets of their quotes.
    const keys: ObjectKeys[] = [];
    const keyCounts: number[] = [];
    let depth = -1;
    let nextBackslash = text.indexOf('\\');
    const length = text.length;
    // Only quotes and braces matter, each found by a native search (not a loop over every character): the next of
    // each, moved past a string when it fell inside one.
    let quote = text.indexOf('"');
    let opening = text.indexOf('{');
    let closing = text.indexOf('}');
    const NONE = length + 1;
    if (opening === -1) opening = NONE;
    if (closing === -1) closing = NONE;
    if (quote === -1) quote = NONE;
    while (problems.length < MAX_TEXT_PROBLEMS) {
        if (quote < opening && quote < closing) {
            // A string: its closing quote is the first not escaped.
            const start = quote;
            let end = text.indexOf('"', start + 1);
            let escaped = false;
            if (nextBackslash !== -1 && nextBackslash < end) {
                escaped = true;
                end = readEscapedString(text, start, problems);
                nextBackslash = text.indexOf('\\', end);
            }
            let i = end + 1;
            while (i < length && isJsonSpace(text.charCodeAt(i))) i++;
            if (text.charCodeAt(i) === 0x3a && depth >= 0) {
                const open = keys[depth];
                const count = keyCounts[depth];
                const first = repeatedKey(text, open, count, start, end, escaped);
                if (first !== -1)
                    problems.push({
                        offset: start,
                        code: 'data.duplicate-key',
                        message: `the key ${quoteText(keyText(text, start, end))} is given twice in this object, and JSON keeps only the last`,
                        first,
                    });
                open.starts[count] = start;
                open.ends[count] = end;
                open.escaped[count] = escaped;
                keyCounts[depth] = count + 1;
            }
            quote = text.indexOf('"', end + 1);
            if (quote === -1) quote = NONE;
            if (opening < end) {
                opening = text.indexOf('{', end + 1);
                if (opening === -1) opening = NONE;
            }
            if (closing < end) {
                closing = text.indexOf('}', end + 1);
                if (closing === -1) closing = NONE;
            }
        } else if (opening < closing) {
            depth++;
            if (keys.length <= depth) keys.push({ starts: [], ends: [], escaped: [] });
            keyCounts[depth] = 0;
            keys[depth].byText?.clear();
            opening = text.indexOf('{', opening + 1);
            if (opening === -1) opening = NONE;
        } else if (closing < NONE) {
            depth--;
            closing = text.indexOf('}', closing + 1);
            if (closing === -1) closing = NONE;
        } else break;
    }
    return problems.sort((a, b) => a.offset - b.offset).slice(0, MAX_TEXT_PROBLEMS);
}

/** True when a text holds no lone surrogate (`String.prototype.isWellFormed`, native from Node 20). */
function isWellFormed(text: string): boolean {
    const native = (text as unknown as { isWellFormed?: () => boolean }).isWellFormed;
    return native !== undefined ? native.call(text) : !/[\ud800-\udfff]/u.test(text);
}

/** Reads a string holding escapes from its opening quote; returns the offset of its closing quote. */
function readEscapedString(text: string, start: number, problems: JsonTextProblem[]): number {
    let i = start + 1;
    for (;;) {
        const c = text.charCodeAt(i);
        if (c === 0x22) return i;
        if (c !== 0x5c) {
            i++;
            continue;
        }
        if (text.charCodeAt(i + 1) !== 0x75) {
            i += 2;
            continue;
        }
        const unit = parseInt(text.slice(i + 2, i + 6), 16);
        if (unit >= 0xd800 && unit <= 0xdbff) {
            const low =
                text.charCodeAt(i + 6) === 0x5c && text.charCodeAt(i + 7) === 0x75
                    ? parseInt(text.slice(i + 8, i + 12), 16)
                    : NaN;
            if (low >= 0xdc00 && low <= 0xdfff) {
                i += 12;
                continue;
            }
            problems.push({ offset: i, code: 'data.lone-surrogate', message: loneSurrogate(unit) });
        } else if (unit >= 0xdc00 && unit <= 0xdfff) {
            problems.push({ offset: i, code: 'data.lone-surrogate', message: loneSurrogate(unit) });
        }
        i += 6;
    }
}

function loneSurrogate(unit: number): string {
    const kind =
        unit <= 0xdbff
            ? 'a high surrogate without the low one after it'
            : 'a low surrogate without the high one before it';
    return `\\u${unit.toString(16).padStart(4, '0')} is ${kind}: it is no character, and a store would keep U+FFFD in its place (write the character, or both halves of its pair)`;
}

/**
 * The offset of an earlier key of the object (`starts`, `ends`, `escapes`: its first `count` keys) equal to the
 * one from `start` to `end` (its quotes), else -1. Keys without escapes compare as written; with one, decoded (one
 * key may be spelled `"a"` and `"\u0061"`).
 */
function repeatedKey(
    text: string,
    keys: ObjectKeys,
    count: number,
    start: number,
    end: number,
    escaped: boolean,
): number {
    if (count > MAX_SCANNED_KEYS) {
        // An object of many keys (not a data object, but a file may hold one) is looked up by key, not scanned.
        if (keys.byText === undefined || keys.byText.size === 0) {
            keys.byText = new Map();
            for (let k = 0; k < count; k++)
                keys.byText.set(keyText(text, keys.starts[k], keys.ends[k]), keys.starts[k]);
        }
        const key = keyText(text, start, end);
        const first = keys.byText.get(key);
        if (first === undefined) keys.byText.set(key, start);
        return first ?? -1;
    }
    const size = end - start;
    for (let k = 0; k < count; k++) {
        const otherStart = keys.starts[k];
        const otherEnd = keys.ends[k];
        if (!escaped && !keys.escaped[k]) {
            if (otherEnd - otherStart !== size) continue;
            let j = 1;
            while (j < size && text.charCodeAt(start + j) === text.charCodeAt(otherStart + j)) j++;
            if (j === size) return otherStart;
        } else if (keyText(text, start, end) === keyText(text, otherStart, otherEnd)) return otherStart;
    }
    return -1;
}

/** The keys of an open object, reused for each object at one depth. */
interface ObjectKeys {
    starts: number[];
    ends: number[];
    escaped: boolean[];
    /** The keys by their text, once the object has more than MAX_SCANNED_KEYS. */
    byText?: Map<string, number>;
}

/** Objects of at most this many keys are searched for a repeated key one by one. */
const MAX_SCANNED_KEYS = 32;

/** The value of the JSON string from `start` to `end` (its quotes). */
function keyText(text: string, start: number, end: number): string {
    return JSON.parse(text.slice(start, end + 1)) as string;
}

function isJsonSpace(c: number): boolean {
    return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * The offset of the value at a path of keys and indexes in a valid JSON text (the text JSON.parse took), or of the
 * closest container on the way when the path goes further than the text. One pass up to the value.
 */
export function locateJsonValue(text: string, path: readonly (string | number)[]): number {
    let i = skipSpace(text, 0);
    for (const step of path) {
        const open = text.charCodeAt(i);
        if (open === 0x5b && typeof step === 'number') {
            let at = skipSpace(text, i + 1);
            for (let index = 0; index < step && text.charCodeAt(at) !== 0x5d; index++)
                at = skipSpace(text, skipSpace(text, skipValue(text, at)) + 1);
            if (text.charCodeAt(at) === 0x5d) return i;
            i = at;
        } else if (open === 0x7b && typeof step === 'string') {
            let at = skipSpace(text, i + 1);
            let found = -1;
            while (text.charCodeAt(at) === 0x22) {
                const end = skipValue(text, at);
                const value = skipSpace(text, skipSpace(text, end) + 1);
                // The last of a repeated key is the one JSON.parse keeps.
                if (keyText(text, at, end - 1) === step) found = value;
                at = skipSpace(text, skipValue(text, value));
                if (text.charCodeAt(at) === 0x2c) at = skipSpace(text, at + 1);
            }
            if (found === -1) return i;
            i = found;
        } else return i;
    }
    return i;
}

function skipSpace(text: string, i: number): number {
    while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
    return i;
}

/** The offset just after the JSON value starting at `i`. */
function skipValue(text: string, i: number): number {
    const c = text.charCodeAt(i);
    if (c === 0x22) return stringEnd(text, i) + 1;
    if (c === 0x7b || c === 0x5b) {
        let depth = 0;
        for (let at = i; at < text.length; at++) {
            const d = text.charCodeAt(at);
            if (d === 0x22) at = stringEnd(text, at);
            else if (d === 0x7b || d === 0x5b) depth++;
            else if (d === 0x7d || d === 0x5d) {
                depth--;
                if (depth === 0) return at + 1;
            }
        }
        return text.length;
    }
    let at = i;
    while (at < text.length) {
        const d = text.charCodeAt(at);
        if (d === 0x2c || d === 0x7d || d === 0x5d || isJsonSpace(d)) break;
        at++;
    }
    return at;
}

/** The offset of the closing quote of the string opening at `start`. */
function stringEnd(text: string, start: number): number {
    let at = start + 1;
    for (;;) {
        const quote = text.indexOf('"', at);
        if (quote === -1) return text.length;
        let backslashes = 0;
        while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
        if (backslashes % 2 === 0) return quote;
        at = quote + 1;
    }
}

/**
 * The first syntax error of a text JSON.parse refused, at its offset, as a sentence (strict JSON: no comments, no
 * trailing commas). V8's own message may quote the text around the error, control characters included.
 */
export function findJsonSyntaxError(text: string): JsonTextProblem {
    let found: JsonTextProblem | undefined;
    visit(
        text,
        {
            onError(error, offset) {
                found ??= {
                    offset,
                    code: 'data.syntax',
                    message: `not valid JSON: ${printParseErrorCode(error)
                        .replace(/([a-z])([A-Z])/g, '$1 $2')
                        .toLowerCase()}`,
                };
            },
        },
        { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false },
    );
    return found ?? { offset: 0, code: 'data.syntax', message: 'not valid JSON' };
}

/** Characters a terminal may act on, or that hide or reorder text: shown as `\uXXXX`. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * A value from a user's file quoted for a message: as JSON writes it, with every control character (C0, DEL, C1),
 * line separator and direction mark escaped, so that no byte of a bad file acts on the terminal.
 */
export function quoteText(value: unknown): string {
    return escapeControls(JSON.stringify(value) ?? String(value));
}

/** A text with the characters `quoteText` escapes written as `\uXXXX` (for names quoted otherwise). */
export function escapeControls(text: string): string {
    return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
