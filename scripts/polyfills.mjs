// Langium 4.4's parser library (chevrotain 13) calls Object.groupBy, which Node 20 lacks (Node >= 21 has it).
// Loaded before langium-cli and by the runtime entry points so both work on the Node 20 these machines run.
if (typeof Object.groupBy !== 'function') {
    Object.defineProperty(Object, 'groupBy', {
        configurable: true,
        writable: true,
        value: function groupBy(items, keyOf) {
            const groups = Object.create(null);
            let index = 0;
            for (const item of items) {
                const key = keyOf(item, index++);
                (groups[key] ??= []).push(item);
            }
            return groups;
        },
    });
}
if (typeof Map.groupBy !== 'function') {
    Object.defineProperty(Map, 'groupBy', {
        configurable: true,
        writable: true,
        value: function groupBy(items, keyOf) {
            const groups = new Map();
            let index = 0;
            for (const item of items) {
                const key = keyOf(item, index++);
                const list = groups.get(key);
                if (list) list.push(item);
                else groups.set(key, [item]);
            }
            return groups;
        },
    });
}
