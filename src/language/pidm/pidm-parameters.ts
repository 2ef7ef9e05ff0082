/**
 * What the parameters of a PIDM query are called: `"?name"` is `name`, `"?"` takes the compared
 * attribute's name, a repeated name gets `_2`, `_3`, …; the same named parameter compared twice with
 * attributes of one type is one parameter (one value). The transformation names the KVLM parameters with
 * this and the oracle names the query's parameters with it, so a design and its oracle bind alike.
 */
import { toKvlmName, uniqueName } from '../kvlm/kvlm-names.js';

/** Names the parameters of one query, in the order its comparisons are read. */
export class QueryParameterNamer {
    private readonly taken = new Set<string>();
    private readonly named = new Map<string, { name: string; type: string }>();

    /**
     * The name of the parameter a comparison uses: `explicit` is the name written after `?` (`''` for an
     * anonymous one), `attribute` and `type` those of the compared attribute. `isNew` is false when the
     * comparison reuses a parameter the query already has.
     */
    name(explicit: string, attribute: string, type: string): { name: string; isNew: boolean } {
        if (explicit === '') return { name: uniqueName(toKvlmName(attribute), this.taken), isNew: true };
        const known = this.named.get(explicit);
        if (known && known.type === type) return { name: known.name, isNew: false };
        const name = uniqueName(toKvlmName(explicit), this.taken);
        if (!known) this.named.set(explicit, { name, type });
        return { name, isNew: true };
    }
}
