/**
 * KVLM scoping: Langium's default rules (a name is looked up among the named children of each enclosing node,
 * innermost first, then in the global scope), with each level indexed by name (indexed-scope-provider.ts).
 */
import { IndexedScopeProvider } from '../common/indexed-scope-provider.js';

/** The KVLM scope provider. */
export class KvlmScopeProvider extends IndexedScopeProvider {}
