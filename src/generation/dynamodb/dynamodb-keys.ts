/**
 * The order-preserving key encodings of the DynamoDB design, shared by the design (bounds of literals), the
 * generated README and the engine runtime (the items it writes, the keys it queries). DynamoDB orders a string
 * sort key by its UTF-8 bytes; each component below is made so that byte order of the encoded key is the order of
 * the values, component by component:
 *
 * - text, date, time, datetime: the text itself, with U+0000 and U+0001 escaped (`\x01\x01`, `\x01\x02`), so that
 *   the separator U+0000 that ends each component sorts below every character a component can hold (a prefix sorts
 *   first, as in the collation);
 * - int and float: the 64-bit IEEE 754 bits as 16 hex digits, the sign bit flipped for a positive number and every
 *   bit flipped for a negative one (then byte order is numeric order; -0 is written as 0);
 * - boolean: `0` or `1`.
 *
 * No imports: the generated TypeScript client of the DynamoDB design ships this file (`kvmod/dynamodb-keys.ts`).
 */

/** The logical types of the model (the language's `LogicalType`, spelled here so that the client needs no import). */
export type KeyType = 'text' | 'int' | 'float' | 'boolean' | 'date' | 'time' | 'datetime';

/** Ends every key component: sorts below every character an encoded component holds. */
export const KEY_SEPARATOR = '\u0000';

/** What a bound just after all keys whose component starts with a value ends with (the escape character). */
export const AFTER_COMPONENT = '\u0001';

/** A typed value as instance data carries it. */
export type KeyValue = string | number | boolean;

/** A value of a logical type as one key component, without its separator (see the module comment). */
export function encodeKeyComponent(type: KeyType, value: KeyValue): string {
    switch (type) {
        case 'int':
        case 'float':
            return orderedNumber(Number(value));
        case 'boolean':
            return value === true || value === 'true' ? '1' : '0';
        default:
            return String(value).replace(/[\u0000\u0001]/g, (c) => (c === '\u0000' ? '\u0001\u0001' : '\u0001\u0002'));
    }
}

/** A finite number as 16 hex digits whose byte order is numeric order. */
export function orderedNumber(value: number): string {
    if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, value === 0 ? 0 : value);
    const high = view.getUint32(0);
    const low = view.getUint32(4);
    const negative = high >>> 31 === 1;
    const h = negative ? ~high >>> 0 : (high | 0x80000000) >>> 0;
    const l = negative ? ~low >>> 0 : low;
    return h.toString(16).padStart(8, '0') + l.toString(16).padStart(8, '0');
}

/** A partition key: the access's prefix, then each equality value's component, separated. */
export function partitionKey(prefix: string, parts: readonly { type: KeyType; value: KeyValue }[]): string {
    return [prefix, ...parts.map((part) => encodeKeyComponent(part.type, part.value))].join(KEY_SEPARATOR);
}

/**
 * A sort key: each component followed by the separator, then `#` and the row's key (which makes the item's key
 * unique; components of equal rows tie, and their order is free).
 */
export function sortKey(parts: readonly { type: KeyType; value: KeyValue }[], rowKey: string): string {
    return parts.map((part) => encodeKeyComponent(part.type, part.value) + KEY_SEPARATOR).join('') + '#' + rowKey;
}

/**
 * The inclusive bounds on a sort key for a condition on its leading component: every key whose leading component
 * is `>= v` is `>= enc(v)`; `> v` is `>= enc(v) + AFTER`; `<= v` is `<= enc(v) + AFTER`; `< v` is `<= enc(v)`
 * (no key equals a bound: a key's component always ends with the separator).
 */
export function sortKeyBound(type: KeyType, value: KeyValue, inclusive: boolean, lower: boolean): string {
    const encoded = encodeKeyComponent(type, value);
    return lower === inclusive ? encoded : encoded + AFTER_COMPONENT;
}

/** The row key of a collection's row as the sort key ends with it: its parts, escaped, separated. */
export function rowKeyText(keyParts: readonly string[]): string {
    return keyParts.map((part) => encodeKeyComponent('text', part)).join(KEY_SEPARATOR);
}
