// Copied by kvmod from its src/generation/redis/redis-index-schema.ts: the rules of the Redis design have one source. Do not edit.
/**
 * How an index's schema is compared with the design's: the field specs of an FT.CREATE argv and of an FT.INFO
 * reply (RediSearch 1.2 `fields`, 2.x `attributes`) in one canonical form, one line per field. Pure, without
 * imports: the TypeScript client ships it verbatim (its `createIndexes` keeps an index with the same schema and
 * says what differs otherwise), so the client and `kvmod load` compare schemas alike.
 */

/** The field specs of an FT.CREATE argv, one canonical line per field (`name TAG SEPARATOR=… SORTABLE`). */
export function schemaOfCreate(argv: readonly string[]): string[] {
    const start = argv.findIndex((arg) => arg.toUpperCase() === 'SCHEMA');
    const specs: string[] = [];
    let i = start + 1;
    while (start >= 0 && i < argv.length) {
        const name = argv[i] ?? '';
        const type = (argv[i + 1] ?? '').toUpperCase();
        i += 2;
        const options: string[] = [];
        while (i < argv.length) {
            const word = (argv[i] ?? '').toUpperCase();
            if (
                word === 'SORTABLE' ||
                word === 'NOSTEM' ||
                word === 'NOINDEX' ||
                word === 'UNF' ||
                word === 'CASESENSITIVE'
            ) {
                options.push(word);
                i += 1;
            } else if (word === 'SEPARATOR' || word === 'WEIGHT' || word === 'PHONETIC') {
                if (!(word === 'WEIGHT' && Number(argv[i + 1]) === 1)) options.push(`${word}=${argv[i + 1]}`);
                i += 2;
            } else break;
        }
        specs.push(canonicalSpec(name, type, options));
    }
    return specs;
}

function canonicalSpec(name: string, type: string, options: string[]): string {
    const withDefaults =
        type === 'TAG' && !options.some((o) => o.startsWith('SEPARATOR=')) ? [...options, 'SEPARATOR=,'] : options;
    return [name, type, ...withDefaults.sort()].join(' ');
}

/** The field specs FT.INFO reports (RediSearch 1.2 `fields`, 2.x `attributes`), in the same canonical form. */
export function schemaOfInfo(info: unknown): string[] {
    const entries = info as unknown[];
    const specs: string[] = [];
    for (let i = 0; i + 1 < entries.length; i += 2) {
        const key = String(entries[i]);
        if (key !== 'fields' && key !== 'attributes') continue;
        for (const raw of entries[i + 1] as unknown[][]) {
            const words = raw.map(String);
            let name = words[0] ?? '';
            let j = 1;
            if (words[0] === 'identifier') {
                name = words[words.indexOf('attribute') + 1] ?? words[1] ?? '';
                j = 0;
            }
            let type = '';
            const options: string[] = [];
            for (; j < words.length; j++) {
                const word = (words[j] ?? '').toUpperCase();
                if (word === 'IDENTIFIER' || word === 'ATTRIBUTE') j++;
                else if (word === 'TYPE') type = (words[++j] ?? '').toUpperCase();
                else if (word === 'SEPARATOR' || word === 'PHONETIC') options.push(`${word}=${words[++j]}`);
                else if (word === 'WEIGHT') {
                    const weight = words[++j];
                    if (Number(weight) !== 1) options.push(`WEIGHT=${weight}`);
                } else if (
                    word === 'SORTABLE' ||
                    word === 'NOSTEM' ||
                    word === 'NOINDEX' ||
                    word === 'UNF' ||
                    word === 'CASESENSITIVE'
                )
                    options.push(word);
            }
            specs.push(canonicalSpec(name, type, options));
        }
    }
    return specs;
}
