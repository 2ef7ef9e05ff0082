/**
 * Which attributes the queries search: text attributes some query compares (`=`, `!=`) or sorts on, and floats
 * some query compares. The runtime model carries it (`RuntimeModel.searched`), read once from the PIDM queries;
 * the servable screen (servable-values.ts) asks the engine's text rules about exactly these values. Its own module,
 * below both, so that the model does not import the screen that reads the instance data.
 */
import type { PidmModel } from '../language/generated/ast.js';
import { planQuery, type PlanExpression } from './query-plan.js';

/** How queries use one text attribute: the queries comparing it and those sorting on it. */
export interface SearchedText {
    compared: string[];
    sorted: string[];
}

/** Text attributes the queries compare or sort on, and floats they compare: entity → attribute → the queries. */
export type SearchedTexts = Map<string, Map<string, SearchedText>>;

/** Reads from the PIDM queries which text (and compared float) attributes the engine will index. */
export function searchedTexts(models: readonly PidmModel[]): SearchedTexts {
    const searched: SearchedTexts = new Map();
    const note = (entity: string, attribute: string, query: string, role: keyof SearchedText) => {
        let attributes = searched.get(entity);
        if (!attributes) searched.set(entity, (attributes = new Map()));
        let use = attributes.get(attribute);
        if (!use) attributes.set(attribute, (use = { compared: [], sorted: [] }));
        if (!use[role].includes(query)) use[role].push(query);
    };
    for (const query of models.flatMap((model) => model.queries)) {
        let plan;
        try {
            plan = planQuery(query);
        } catch {
            continue; // an unresolved query is a validation error, reported by the model check
        }
        const entityOf = new Map(plan.nodes.map((node) => [node.key, node.entity]));
        const walk = (expression: PlanExpression | undefined): void => {
            if (!expression) return;
            if (expression.kind === 'compare') {
                // Floats too: an engine may index some of them as another number (`TextRules.unservableNumber`).
                if (expression.value.type === 'text' || expression.value.type === 'float')
                    note(entityOf.get(expression.value.node)!, expression.value.attribute, plan.name, 'compared');
            } else if (expression.kind === 'not') walk(expression.operand);
            else {
                walk(expression.left);
                walk(expression.right);
            }
        };
        walk(plan.where);
        for (const key of plan.orderBy)
            if (key.type === 'text') note(entityOf.get(key.node)!, key.attribute, plan.name, 'sorted');
    }
    return searched;
}
