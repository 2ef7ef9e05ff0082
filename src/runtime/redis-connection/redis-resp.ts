/**
 * Commands in the Redis protocol's own form (RESP: `*<argc>`, then `$<bytes>` and each argument), for the loader's
 * pipelined batches (redis-link.ts `sendBatch`): a collection's insert compiled once into an encoder that turns a row
 * straight into RESP text (exactly what `bindRedisCommand` binds, without an argv array per row), and a buffer that
 * collects a batch's text as the bytes written to the socket. This is where most of a load's client time went.
 */
import { bindRedisCommand, type RedisParamValues } from '../../generation/redis/redis-commands.js';
import { encodeRedisValue, encodeSortKey, escapeKeyPart } from '../../generation/shared/redis-encoding.js';
import { equalityForm } from '../../generation/shared/redis-text-rules.js';
import type { RedisCommand, RedisParamSlot } from '../../generation/redis/redis-view-model.js';
import { isCalendarDate } from '../../language/common/calendar-date.js';

/** Commands as one RESP buffer: what `RedisLink.sendBatch` writes. */
export interface RespBatch {
    /** The encoded commands. */
    bytes: Uint8Array;
    /** How many commands the bytes hold: as many replies are awaited. */
    count: number;
    /** The first command's name, for messages (`did not answer FT.ADD within 30 s`). */
    first: string;
    /** Where each command ends in `bytes` (so that the batch can be written a few commands at a time). */
    ends?: Uint32Array;
    /**
     * The commands may block the connection one at a time (RediSearch 1.x FT.ADD on a server without SAFEMODE): they
     * are written a little ahead of their replies only (see redis-link.ts `PIPE_WINDOW`). Other commands (HSET, FCALL)
     * are written as far ahead as `redis-cli --pipe` writes them.
     */
    blocking?: boolean;
}

/** The RESP form of one argument. */
function bulk(text: string): string {
    return `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
}

/** The RESP text of argv. */
export function respOf(argv: readonly string[]): string {
    let text = `*${argv.length}\r\n`;
    for (const arg of argv) text += bulk(arg);
    return text;
}

/** Commands given as argv, as one RESP batch. */
export function respBatch(commands: readonly (readonly string[])[]): RespBatch {
    const writer = new RespWriter();
    for (const argv of commands) writer.append(respOf(argv));
    return writer.take(commands[0]?.[0] ?? '');
}

/**
 * Turns a row's parameter values into the RESP text of one command. `keyParts` (with the encoder compiled for the
 * key's parameters) supplies a key part that `values` does not hold, as `rowParameters` does, without a copy of
 * the values per row.
 */
export type RespEncoder = (values: RedisParamValues, keyParts?: readonly string[]) => string;

/** One argument of a compiled command: its RESP bytes when it is constant, else its parts. */
type CompiledArg =
    { kind: 'constant'; bytes: Buffer } | { kind: 'bound'; parts: (string | CompiledSlot)[]; dropWhenNull?: string };

/** A slot as the encoder reads it: its own copy, with a cache of encoded texts and the key part that stands in. */
type CompiledSlot = RedisParamSlot & { cache?: Map<unknown, string>; keyPart?: number };

/** Encoded values remembered per argument of a compiled command (then forgotten all at once). */
const VALUE_CACHE_SIZE = 1 << 16;
const CACHED_TYPES = new Set(['date', 'time', 'datetime']);

/** The slot uses a row write has (the others, query-only, take `bindRedisCommand`'s general path). */
const ROW_USES = new Set(['value', 'key-part', 'sort-key', 'equality-key']);

/**
 * The encoder of a command: per row, the same arguments `bindRedisCommand` binds (an optional value that is null
 * drops its field/value pair) in RESP. A value it cannot encode goes through `bindRedisCommand` itself, so the error
 * is the one every other path reports.
 */
export function compileRespEncoder(command: RedisCommand, keyParams: readonly string[] = []): RespEncoder {
    const write = compileRespRowWriter(command, keyParams);
    const writer = new RespWriter();
    return (values, keyParts) => {
        write(writer, values, keyParts);
        return Buffer.from(writer.take('').bytes).toString('utf8');
    };
}

/** Writes a row's command straight into a batch's buffer (what `compileRespEncoder` returns as text). */
export type RespRowWriter = (writer: RespWriter, values: RedisParamValues, keyParts?: readonly string[]) => void;

/**
 * The row writer of a command (see `compileRespEncoder`): constant arguments copied as bytes encoded once, each
 * value's length and UTF-8 bytes written in place, so a row leaves no string behind it.
 */
export function compileRespRowWriter(command: RedisCommand, keyParams: readonly string[] = []): RespRowWriter {
    const withKeyParts = (values: RedisParamValues, keyParts: readonly string[] | undefined): RedisParamValues => {
        if (keyParts === undefined || keyParams.every((param) => param in values)) return values;
        const all: Record<string, unknown> = { ...values };
        keyParams.forEach((param, position) => {
            if (!(param in all)) all[param] = keyParts[position];
        });
        return all;
    };
    const general: RespRowWriter = (writer, values, keyParts) =>
        writer.append(respOf(bindRedisCommand(command, withKeyParts(values, keyParts))));
    const args: CompiledArg[] = [];
    for (const [position, arg] of command.argv.entries()) {
        const slots = arg.filter((part): part is RedisParamSlot => typeof part !== 'string');
        if (slots.some((slot) => !ROW_USES.has(slot.use))) return general;
        if (slots.length === 0) {
            args.push({ kind: 'constant', bytes: Buffer.from(bulk(arg.join('')), 'utf8') });
            continue;
        }
        const only = arg.length === 1 ? slots[0] : undefined;
        if (only?.nullable) {
            // Two droppable arguments in a row would each drop "the one before": not a form the generator writes.
            if (position === 0 || args.at(-1)?.kind === 'bound') return general;
            args.push({ kind: 'bound', parts: arg, dropWhenNull: only.param });
        } else args.push({ kind: 'bound', parts: arg });
    }
    // Each bound part gets its own copy of its slot, with a cache for dates, times and sort keys.
    for (const arg of args) {
        if (arg.kind !== 'bound') continue;
        arg.parts = arg.parts.map((part): string | CompiledSlot => {
            if (typeof part === 'string') return part;
            const slot: CompiledSlot = { ...part };
            if (CACHED_TYPES.has(part.type) || part.use === 'sort-key' || part.use === 'equality-key')
                slot.cache = new Map<unknown, string>();
            const keyPart = keyParams.indexOf(part.param);
            if (keyPart >= 0) slot.keyPart = keyPart;
            return slot;
        });
    }
    // Dates and times are parsed and checked (regular expressions), and sort keys folded character by character:
    // their texts are remembered per slot, since they repeat across rows (the same flight's date in every row of its
    // passengers, the same city in many). Other values are cheaper to encode than to look up, and key parts are
    // mostly unique. The common cases skip the calls: a text value that is a string is itself, a number that is an
    // int or a float without an exponent is its `String` (what `encodeRedisValue` returns for them), and a key part
    // with neither `%` nor `:` needs no escape.
    const slotText = (
        slot: CompiledSlot,
        values: RedisParamValues,
        keyParts: readonly string[] | undefined,
    ): string => {
        let value = values[slot.param];
        if (value === undefined && slot.keyPart !== undefined && keyParts !== undefined && !(slot.param in values))
            value = keyParts[slot.keyPart];
        value ??= slot.default;
        if (value === null || value === undefined) throw new Error('no value');
        // The sort key of an ASCII text is its lower case (`encodeSortKey` folds only A-Z there): cheaper than a
        // lookup, and most such texts (identifiers) are unique, so they are not remembered either.
        if (slot.use === 'sort-key' && slot.type === 'text' && typeof value === 'string' && isAscii(value))
            return value.toLowerCase();
        const cache = slot.cache;
        if (cache !== undefined) {
            const known = cache.get(value);
            if (known !== undefined) return known;
        }
        let encoded: string | undefined;
        if (typeof value === 'string') {
            if (slot.type === 'text') encoded = value;
        } else if (typeof value === 'number') {
            if (slot.type === 'int' ? Number.isSafeInteger(value) : slot.type === 'float' && Number.isFinite(value)) {
                encoded = String(value);
                if (encoded.includes('e')) encoded = undefined;
            }
        }
        encoded ??= encodeRedisValue(slot.type, value);
        const text =
            slot.use === 'key-part'
                ? encoded.includes('%') || encoded.includes(':')
                    ? escapeKeyPart(encoded)
                    : encoded
                : slot.use === 'sort-key'
                  ? encodeSortKey(encoded)
                  : slot.use === 'equality-key'
                    ? equalityForm(encoded)
                    : encoded;
        if (cache !== undefined && typeof value === 'string') {
            if (cache.size >= VALUE_CACHE_SIZE) cache.clear();
            cache.set(value, text);
        }
        return text;
    };
    // The arguments as the writer runs them: runs of constants merged into one copy of bytes, except the field name
    // before an optional value (dropped with it when the value is null); an argument that is one date, time or datetime
    // slot written as its digits straight from the value's characters when the value has the plain ISO form.
    type Step =
        | { kind: 'constant'; bytes: Uint8Array; dropWhenNull?: string }
        | { kind: 'bound'; parts: (string | CompiledSlot)[]; dropWhenNull?: string; iso?: IsoForm };
    const steps: Step[] = [];
    for (let i = 0; i < args.length; i++) {
        const arg = args[i];
        const next = args[i + 1];
        if (arg.kind === 'constant') {
            const dropWhenNull = next?.kind === 'bound' ? next.dropWhenNull : undefined;
            const last = steps.at(-1);
            if (dropWhenNull === undefined && last?.kind === 'constant' && last.dropWhenNull === undefined)
                last.bytes = Buffer.concat([last.bytes, arg.bytes]);
            else steps.push({ kind: 'constant', bytes: arg.bytes, dropWhenNull });
            continue;
        }
        const only = arg.parts.length === 1 ? arg.parts[0] : undefined;
        const iso = typeof only === 'object' ? ISO_FORMS[only.type as keyof typeof ISO_FORMS] : undefined;
        steps.push({ kind: 'bound', parts: arg.parts, dropWhenNull: arg.dropWhenNull, iso });
    }
    const droppable = args.flatMap((arg) =>
        arg.kind === 'bound' && arg.dropWhenNull !== undefined ? [arg.dropWhenNull] : [],
    );
    return (writer, values, keyParts) => {
        // An optional value that is null drops its argument and the field name before it (always a constant).
        // Index loops: in code not optimized yet, `for…of` makes objects per step.
        let argc = args.length;
        for (let i = 0; i < droppable.length; i++) {
            const value = values[droppable[i]];
            if (value === null || value === undefined) argc -= 2;
        }
        const mark = writer.mark();
        try {
            writer.begin(argc);
            for (let i = 0; i < steps.length; i++) {
                const step = steps[i];
                if (step.dropWhenNull !== undefined) {
                    const value = values[step.dropWhenNull];
                    if (value === null || value === undefined) continue;
                }
                if (step.kind === 'constant') {
                    writer.raw(step.bytes);
                    continue;
                }
                const parts = step.parts;
                if (step.iso !== undefined) {
                    const value = values[(parts[0] as CompiledSlot).param];
                    if (typeof value === 'string' && writer.isoDigits(value, step.iso)) continue;
                }
                let text = '';
                for (let p = 0; p < parts.length; p++) {
                    const part = parts[p];
                    text += typeof part === 'string' ? part : slotText(part, values, keyParts);
                }
                writer.argument(text);
            }
        } catch {
            writer.reset(mark);
            general(writer, values, keyParts);
            return;
        }
        writer.end();
    };
}

/**
 * Where the digits of an ISO date, time or datetime lie, and the character expected at every other position: the
 * form `encodeRedisValue` reads with its regular expressions (a time with seconds, a datetime with `T` or a space),
 * exactly and with nothing around it. Its encoding is those digits without leading zeros (whatever the slot's use:
 * digits need no key escape and fold to themselves in a sort key).
 */
export interface IsoForm {
    length: number;
    digits: readonly number[];
    /** position → allowed character codes. */
    separators: readonly (readonly [number, readonly number[]])[];
    /** Where the year, month, day (a date) and hours, minutes, seconds (a time) start in the value, or -1. */
    date: number;
    time: number;
}

const DASH = [0x2d];
const COLON = [0x3a];
export const ISO_FORMS: Record<'date' | 'time' | 'datetime', IsoForm> = {
    date: {
        length: 10,
        digits: [0, 1, 2, 3, 5, 6, 8, 9],
        separators: [
            [4, DASH],
            [7, DASH],
        ],
        date: 0,
        time: -1,
    },
    time: {
        length: 8,
        digits: [0, 1, 3, 4, 6, 7],
        separators: [
            [2, COLON],
            [5, COLON],
        ],
        date: -1,
        time: 0,
    },
    datetime: {
        length: 19,
        digits: [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18],
        separators: [
            [4, DASH],
            [7, DASH],
            [10, [0x54, 0x20]], // T or a space
            [13, COLON],
            [16, COLON],
        ],
        date: 0,
        time: 11,
    },
};

/** The value as a number of digits `[from, from + count)` of `text`, or -1 when one is not a digit. */
function digitsAt(text: string, from: number, count: number): number {
    let n = 0;
    for (let i = from; i < from + count; i++) {
        const digit = text.charCodeAt(i) - 0x30;
        if (digit < 0 || digit > 9) return -1;
        n = n * 10 + digit;
    }
    return n;
}

/** True when `text` has exactly the ISO `form` and names a calendar date and a time of day. */
export function isPlainIso(text: string, form: IsoForm): boolean {
    if (text.length !== form.length) return false;
    const separators = form.separators;
    for (let i = 0; i < separators.length; i++)
        if (!separators[i][1].includes(text.charCodeAt(separators[i][0]))) return false;
    const digits = form.digits;
    for (let i = 0; i < digits.length; i++) {
        const code = text.charCodeAt(digits[i]);
        if (code < 0x30 || code > 0x39) return false;
    }
    if (form.date >= 0) {
        const at = form.date;
        if (!isCalendarDate(digitsAt(text, at, 4), digitsAt(text, at + 5, 2), digitsAt(text, at + 8, 2))) return false;
    }
    if (form.time >= 0) {
        const at = form.time;
        if (digitsAt(text, at, 2) > 23 || digitsAt(text, at + 3, 2) > 59 || digitsAt(text, at + 6, 2) > 59)
            return false;
    }
    return true;
}

/** Arguments of at most this many UTF-16 units are written without measuring them first (see `argument`). */
const SHORT_ARGUMENT = 4096;

/** How many decimal digits a non-negative integer takes. */
function decimalDigits(n: number): number {
    let digits = 1;
    while (n >= 10) {
        n = Math.floor(n / 10);
        digits++;
    }
    return digits;
}

/**
 * Writes a short ASCII `text` byte by byte at `at` (half the time of a call into `Buffer.write` for the texts of a
 * row: identifiers, names, numbers); false for a long text or at its first other character (what was written then
 * is overwritten by the caller).
 */
function writeAscii(buffer: Buffer, text: string, at: number): boolean {
    const length = text.length;
    if (length > 64) return false;
    for (let i = 0; i < length; i++) {
        const code = text.charCodeAt(i);
        if (code > 0x7f) return false;
        buffer[at + i] = code;
    }
    return true;
}

/** True when every character of `text` is ASCII. */
function isAscii(text: string): boolean {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
    return true;
}

/** Collects RESP text as UTF-8 bytes in one growing buffer (one copy of each row's text, no rope to flatten). */
export class RespWriter {
    private buffer = Buffer.allocUnsafe(1 << 16);
    private length = 0;
    private count = 0;
    private ends = new Uint32Array(256);

    /** Adds one command's RESP text. */
    append(text: string): void {
        this.room(text.length * 3); // UTF-8 takes at most 3 bytes per UTF-16 unit
        this.length += this.buffer.write(text, this.length, 'utf8');
        this.end();
    }

    /** Where the next command starts (for `reset`). */
    mark(): number {
        return this.length;
    }

    /** Forgets what was written since `mark` (a command left half written). */
    reset(mark: number): void {
        this.length = mark;
    }

    /** Starts a command of `argc` arguments: `argument`/`raw` each, then `end`. */
    begin(argc: number): void {
        this.room(16);
        this.buffer[this.length++] = 0x2a; // *
        this.number(argc);
    }

    /** One argument (or several) given as RESP bytes. */
    raw(bytes: Uint8Array): void {
        this.room(bytes.length);
        this.buffer.set(bytes, this.length);
        this.length += bytes.length;
    }

    /**
     * One argument: the digits of an ISO date, time or datetime value without leading zeros (what `encodeRedisValue`
     * makes of it), written from the value's characters; false (nothing written) when the value does not have exactly
     * the plain `form` of a calendar date and time of day (the caller then encodes it the general way).
     */
    isoDigits(text: string, form: IsoForm): boolean {
        if (!isPlainIso(text, form)) return false;
        const digits = form.digits;
        let first = 0;
        while (first < digits.length - 1 && text.charCodeAt(digits[first]) === 0x30) first++;
        this.room(digits.length + 16);
        this.buffer[this.length++] = 0x24; // $
        this.number(digits.length - first);
        for (let i = first; i < digits.length; i++) this.buffer[this.length++] = text.charCodeAt(digits[i]);
        this.buffer[this.length++] = 0x0d;
        this.buffer[this.length++] = 0x0a;
        return true;
    }

    /** One argument: its length, then its UTF-8 bytes. */
    argument(text: string): void {
        const units = text.length;
        if (units > SHORT_ARGUMENT) {
            const size = Buffer.byteLength(text, 'utf8');
            this.room(size + 16);
            this.buffer[this.length++] = 0x24; // $
            this.number(size);
            this.length += this.buffer.write(text, this.length, 'utf8');
        } else {
            // Without measuring the text first: written where its length takes as many digits as its UTF-16 length
            // does, then moved up when its UTF-8 length takes more (it is never shorter).
            this.room(units * 3 + 24); // UTF-8 takes at most 3 bytes per UTF-16 unit
            const header = this.length;
            const guess = decimalDigits(units);
            const start = header + guess + 3; // `$`, the digits, CRLF
            const size = writeAscii(this.buffer, text, start) ? units : this.buffer.write(text, start, 'utf8');
            const digits = decimalDigits(size);
            if (digits !== guess) this.buffer.copyWithin(start + digits - guess, start, start + size);
            this.buffer[this.length++] = 0x24; // $
            this.number(size);
            this.length += size;
        }
        this.buffer[this.length++] = 0x0d;
        this.buffer[this.length++] = 0x0a;
    }

    /** Ends the command begun last. */
    end(): void {
        if (this.count === this.ends.length) {
            const grown = new Uint32Array(this.ends.length * 2);
            grown.set(this.ends);
            this.ends = grown;
        }
        this.ends[this.count++] = this.length;
    }

    /** A non-negative integer and CRLF. */
    private number(n: number): void {
        if (n < 10) this.buffer[this.length++] = 0x30 + n;
        else {
            // The digits from the last, in place (no string per number).
            const end = this.length + decimalDigits(n);
            for (let at = end - 1, rest = n; at >= this.length; at--, rest = Math.floor(rest / 10))
                this.buffer[at] = 0x30 + (rest % 10);
            this.length = end;
        }
        this.buffer[this.length++] = 0x0d;
        this.buffer[this.length++] = 0x0a;
    }

    /** Makes room for `bytes` more bytes. */
    private room(bytes: number): void {
        if (this.length + bytes <= this.buffer.length) return;
        const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
        this.buffer.copy(grown, 0, 0, this.length);
        this.buffer = grown;
    }

    /** The commands added so far, as a batch; the writer starts over with a new buffer (the socket keeps this one). */
    take(first: string, blocking = false): RespBatch {
        const batch = {
            bytes: this.buffer.subarray(0, this.length),
            count: this.count,
            first,
            ends: this.ends.slice(0, this.count),
            blocking,
        };
        this.buffer = Buffer.allocUnsafe(this.buffer.length);
        this.length = 0;
        this.count = 0;
        return batch;
    }
}

/** The argv of one command's RESP text (`respOf` undone): for the rare command sent again another way. */
export function argvOfResp(text: string): string[] {
    const bytes = Buffer.from(text, 'utf8');
    const line = (from: number): [string, number] => {
        const end = bytes.indexOf('\r\n', from);
        if (end < 0) throw new Error('not a RESP command');
        return [bytes.toString('latin1', from, end), end + 2];
    };
    let [header, at] = line(0);
    if (!header.startsWith('*')) throw new Error('not a RESP command');
    const argv: string[] = [];
    for (let count = Number(header.slice(1)); count > 0; count--) {
        [header, at] = line(at);
        if (!header.startsWith('$')) throw new Error('not a RESP command');
        const length = Number(header.slice(1));
        argv.push(bytes.toString('utf8', at, at + length));
        at += length + 2;
    }
    return argv;
}

const CR = 0x0d;

/**
 * Reads the replies of a pipelined connection (RESP2) as they arrive, chunk by chunk, and hands each on in order: a
 * value (`+` status and `$` bulk replies as strings, `:` integers as numbers, `*` arrays as arrays, nil as null) or
 * an error reply's message. Made for the loader's bulk connection, where almost every reply is one short line
 * (`:3` to an HSET, `+OK` to an FT.ADD): those are read where they lie, in the chunk as it came from the socket,
 * without a decoder object per reply. A chunk is read before the call returns (the caller may reuse its buffer).
 * A reply cut by a chunk's end is read on from where it stopped: the elements of an array read so far are kept
 * (`open`), and only the element cut in two is copied and read again whole — once enough bytes have come for it
 * (`needed`), so a long reply costs time in proportion to its length however many chunks bring it. A byte that starts
 * no reply throws.
 */
export class RespReplyReader {
    /** The bytes of an element cut by a chunk's end, chunk by chunk (joined when `needed` bytes have come). */
    private pending: Buffer[] = [];
    private pendingLength = 0;
    /** The fewest bytes the cut element needs before it is worth reading again. */
    private needed = 0;
    /** The arrays being read, outermost first: the elements read so far and how many are still to come. */
    private readonly open: { items: unknown[]; remaining: number }[] = [];

    constructor(
        private readonly onReply: (value: unknown) => void,
        private readonly onError: (message: string) => void,
        /** The value of an error reply inside an array. */
        private readonly nestedError: (message: string) => unknown = (message) => new Error(message),
    ) {}

    write(chunk: Buffer): void {
        let bytes = chunk;
        if (this.pendingLength > 0) {
            this.pending.push(Buffer.from(chunk)); // the caller may reuse its buffer
            this.pendingLength += chunk.length;
            if (this.pendingLength < this.needed) return;
            bytes = Buffer.concat(this.pending, this.pendingLength);
            this.pending = [];
            this.pendingLength = 0;
        }
        this.needed = 0;
        const length = bytes.length;
        const open = this.open;
        let at = 0;
        while (at < length) {
            const type = bytes[at];
            if (open.length === 0 && (type === 0x3a || type === 0x2b || type === 0x2d)) {
                // A whole reply on one line: `:`, `+`, `-`.
                const end = bytes.indexOf(CR, at + 1);
                if (end < 0 || end + 1 >= length) break;
                if (type === 0x3a) this.onReply(integerAt(bytes, at + 1, end));
                else if (type === 0x2b)
                    // `+OK` (every FT.ADD's reply) without a string made for each.
                    this.onReply(
                        end === at + 3 && bytes[at + 1] === 0x4f && bytes[at + 2] === 0x4b
                            ? 'OK'
                            : bytes.toString('utf8', at + 1, end),
                    );
                else this.onError(bytes.toString('utf8', at + 1, end));
                at = end + 2;
                continue;
            }
            const end = bytes.indexOf(CR, at + 1);
            if (end < 0 || end + 1 >= length) {
                this.needed = length - at + 1;
                break;
            }
            let next = end + 2;
            let value: unknown;
            switch (type) {
                case 0x2b: // +
                    value = bytes.toString('utf8', at + 1, end);
                    break;
                case 0x2d: // - (inside an array: a top-level one is read above)
                    value = this.nestedError(bytes.toString('utf8', at + 1, end));
                    break;
                case 0x3a: // :
                    value = integerAt(bytes, at + 1, end);
                    break;
                case 0x24: {
                    // $
                    const size = integerAt(bytes, at + 1, end);
                    if (size < 0) value = null;
                    else if (next + size + 2 > length) {
                        this.needed = next + size + 2 - at;
                        next = -1;
                    } else {
                        value = bytes.toString('utf8', next, next + size);
                        next += size + 2;
                    }
                    break;
                }
                case 0x2a: {
                    // *
                    const count = integerAt(bytes, at + 1, end);
                    if (count > 0) {
                        open.push({ items: [], remaining: count });
                        at = next;
                        continue;
                    }
                    value = count < 0 ? null : [];
                    break;
                }
                default:
                    throw new Error(`not a RESP reply: byte ${type} at ${at}`);
            }
            if (next < 0) break; // a bulk string cut by the chunk's end
            at = next;
            // The value completes the arrays it ends, innermost first; the outermost one completed is a reply.
            for (;;) {
                const array = open.at(-1);
                if (array === undefined) {
                    this.onReply(value);
                    break;
                }
                array.items.push(value);
                if (--array.remaining > 0) break;
                open.pop();
                value = array.items;
            }
        }
        if (at < length) {
            this.pending.push(Buffer.from(bytes.subarray(at)));
            this.pendingLength = length - at;
            this.needed = Math.max(this.needed, this.pendingLength + 1);
        }
    }
}

/** The decimal integer in bytes [from, to). */
function integerAt(bytes: Buffer, from: number, to: number): number {
    let negative = false;
    if (bytes[from] === 0x2d) {
        negative = true;
        from++;
    }
    if (from >= to) throw new Error('not a RESP integer');
    let n = 0;
    for (let i = from; i < to; i++) {
        const digit = bytes[i] - 0x30;
        if (digit < 0 || digit > 9) throw new Error('not a RESP integer');
        n = n * 10 + digit;
    }
    return negative ? -n : n;
}
