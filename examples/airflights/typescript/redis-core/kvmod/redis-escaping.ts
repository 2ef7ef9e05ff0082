// Copied by kvmod from its src/generation/shared/redis-escaping.ts: the rules of the Redis design have one source. Do not edit.
/**
 * Escaping for the two languages a Redis script speaks: the redis-cli line syntax (how one argument
 * survives `redis-cli < script`) and the RediSearch query syntax (how a value survives the query parser).
 * Pure functions, unit-tested, registered as Handlebars helpers: templates never escape by hand.
 */

/** Characters redis-cli takes literally in an unquoted argument (printable ASCII minus quotes). */
const BARE_ARGUMENT = /^[!#-&(-~]+$/;

/**
 * Quotes one argument for a redis-cli input line: bare when that is unambiguous, otherwise in double quotes
 * with `\\`, `\"`, `\n`, `\r`, `\t` and `\xHH` for other control characters. Non-ASCII text stays as UTF-8.
 * redis-cli drops a backslash before any other character, so every backslash is doubled.
 */
export function quoteCliArgument(value: string): string {
    if (BARE_ARGUMENT.test(value)) return value;
    let out = '"';
    for (const char of value) {
        const code = char.codePointAt(0)!;
        if (char === '\\') out += '\\\\';
        else if (char === '"') out += '\\"';
        else if (char === '\n') out += '\\n';
        else if (char === '\r') out += '\\r';
        else if (char === '\t') out += '\\t';
        else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
        else out += char;
    }
    return out + '"';
}

/** One redis-cli input line for a command: each argument quoted, separated by single spaces. */
export function formatCliCommand(argv: readonly string[]): string {
    return argv.map(quoteCliArgument).join(' ');
}

/**
 * Splits one redis-cli input line into arguments the way redis-cli does (its `sdssplitargs`): double quotes
 * with backslash escapes, single quotes with only `\'`, bare words. Throws on unbalanced quotes or a closing
 * quote not followed by a space. The inverse of `formatCliCommand`, used to read generated scripts back.
 */
export function splitCliLine(line: string): string[] {
    const bytes = Buffer.from(line, 'utf8');
    const args: string[] = [];
    let i = 0;
    const isSpace = (b: number | undefined) =>
        b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09 || b === 0x0b || b === 0x0c;
    const isHex = (b: number | undefined) => b !== undefined && /[0-9a-fA-F]/.test(String.fromCharCode(b));
    while (true) {
        while (i < bytes.length && isSpace(bytes[i])) i++;
        if (i >= bytes.length) return args;
        const current: number[] = [];
        let inDouble = false;
        let inSingle = false;
        let done = false;
        while (!done) {
            const b = bytes[i];
            if (inDouble) {
                if (b === undefined) throw new Error(`unbalanced double quote in: ${line}`);
                if (b === 0x5c && bytes[i + 1] === 0x78 && isHex(bytes[i + 2]) && isHex(bytes[i + 3])) {
                    current.push(Number.parseInt(String.fromCharCode(bytes[i + 2]!, bytes[i + 3]!), 16));
                    i += 3;
                } else if (b === 0x5c && bytes[i + 1] !== undefined) {
                    i++;
                    const escaped = bytes[i]!;
                    const map: Record<number, number> = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x61: 0x07 };
                    current.push(map[escaped] ?? escaped);
                } else if (b === 0x22) {
                    if (bytes[i + 1] !== undefined && !isSpace(bytes[i + 1]))
                        throw new Error(`closing quote must be followed by a space in: ${line}`);
                    done = true;
                } else current.push(b);
            } else if (inSingle) {
                if (b === undefined) throw new Error(`unbalanced single quote in: ${line}`);
                if (b === 0x5c && bytes[i + 1] === 0x27) {
                    i++;
                    current.push(0x27);
                } else if (b === 0x27) {
                    if (bytes[i + 1] !== undefined && !isSpace(bytes[i + 1]))
                        throw new Error(`closing quote must be followed by a space in: ${line}`);
                    done = true;
                } else current.push(b);
            } else if (b === undefined || isSpace(b)) {
                done = true;
            } else if (b === 0x22) inDouble = true;
            else if (b === 0x27) inSingle = true;
            else current.push(b);
            if (i < bytes.length) i++;
        }
        args.push(Buffer.from(current).toString('utf8'));
    }
}

/**
 * Escapes a value for a RediSearch TAG clause (`@f:{…}`): a backslash before every ASCII character that is
 * not `[A-Za-z0-9_]`, spaces included. Non-ASCII characters stay as they are: RediSearch 1.2 matches
 * nothing when a backslash precedes a multi-byte character inside a word (checked against the engine).
 */
export function escapeTagValue(value: string): string {
    return value.replace(/[\x00-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]/g, (char) => `\\${char}`);
}

/** Escapes a field name for use after `@` in a query string (`@Origin\.city:`); same rule as tag values. */
export function escapeQueryFieldName(name: string): string {
    return escapeTagValue(name);
}
