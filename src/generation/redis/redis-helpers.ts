/**
 * The Redis target's Handlebars helpers: every piece of escaping a Redis template needs, named and tested,
 * so a template never quotes or escapes by hand.
 */
import type { HelperDelegate } from 'handlebars';
import { displayRedisCommand, formatRedisCommand } from './redis-commands.js';
import { escapeQueryFieldName, escapeTagValue, formatCliCommand, quoteCliArgument } from '../shared/redis-escaping.js';
import type { RedisCommand } from './redis-view-model.js';
import { rowMapKey } from '../shared/entity-store.js';

function isCommand(value: unknown): value is RedisCommand {
    return typeof value === 'object' && value !== null && Array.isArray((value as RedisCommand).argv);
}

/**
 * The lines made so far, by command: the scripts and the README print the same commands (a query of a thousand
 * columns is one long line, formatted once). View-model commands are not changed once built.
 */
const formattedCommands = new WeakMap<RedisCommand, string>();

/** The helpers registered for the Redis templates. */
export const redisHelpers: Readonly<Record<string, HelperDelegate>> = {
    /** `{{redisCommand create}}`: a view-model command as one redis-cli line, parameters shown as `$name`. */
    redisCommand(command: unknown) {
        if (!isCommand(command))
            throw new Error('redisCommand expects a command of the view model (an object with argv)');
        let line = formattedCommands.get(command);
        if (line === undefined) {
            line = formatRedisCommand(command);
            formattedCommands.set(command, line);
        }
        return line;
    },
    /** `{{redisArgs command}}`: the display argv of a command (for a README table), as a JSON list. */
    redisArgs(command: unknown) {
        if (!isCommand(command)) throw new Error('redisArgs expects a command of the view model (an object with argv)');
        return JSON.stringify(displayRedisCommand(command));
    },
    /** `{{cliArg value}}`: one argument quoted for a redis-cli line (any string: quotes, newlines, unicode, empty). */
    cliArg(value: unknown) {
        if (typeof value !== 'string' && typeof value !== 'number')
            throw new Error(`cliArg expects a string, got ${typeof value}`);
        return quoteCliArgument(String(value));
    },
    /** `{{cliLine "FT.DROPINDEX" index}}`: the arguments as one redis-cli line. */
    cliLine(...args: unknown[]) {
        const values = args.slice(0, -1).flatMap((a) => (Array.isArray(a) ? a : [a]));
        return formatCliCommand(values.map(String));
    },
    /** `{{tagEscape value}}`: a value escaped for a RediSearch TAG clause `@f:{…}`. */
    tagEscape(value: unknown) {
        if (typeof value !== 'string') throw new Error(`tagEscape expects a string, got ${typeof value}`);
        return escapeTagValue(value);
    },
    /** `{{fieldEscape name}}`: a field name escaped for use after `@` in a query string. */
    fieldEscape(value: unknown) {
        if (typeof value !== 'string') throw new Error(`fieldEscape expects a string, got ${typeof value}`);
        return escapeQueryFieldName(value);
    },
    /** `{{mdCode value}}`: inline Markdown code that survives backticks in the value. */
    mdCode(value: unknown) {
        const text = String(value);
        // The common case (a name, a label): no backtick inside, no padding needed.
        if (text !== '' && !text.includes('`')) return `\`${text}\``;
        const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
        const fence = '`'.repeat(longest + 1);
        const pad = text.startsWith('`') || text.endsWith('`') || text === '' ? ' ' : '';
        return `${fence}${pad}${text}${pad}${fence}`;
    },
    /** `{{joinPath parent reference}}`: `parent.reference`, for prose about include paths. */
    joinPath(...args: unknown[]) {
        return args.slice(0, -1).map(String).join('.');
    },
    /** `{{rowMap key.counterKey}}`: the row map beside a counter (`rowMapKey`). */
    rowMap(counterKey: unknown) {
        return rowMapKey(String(counterKey));
    },
    /** `{{#if (anyCounter collections)}}`: whether some collection has counter keys. */
    anyCounter(collections: unknown) {
        return (collections as { key: { counterKey: string | null } }[]).some(
            (collection) => collection.key.counterKey !== null,
        );
    },
    /** `{{concat a b …}}`: the texts joined, for a name made of parts (`attribute#sort`). */
    concat(...args: unknown[]) {
        return args.slice(0, -1).map(String).join('');
    },
    /** `{{visible value}}`: control characters shown as `\xHH` (e.g. the TAG separator) for prose. */
    visible(value: unknown) {
        return String(value).replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
    },
};
