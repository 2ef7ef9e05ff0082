/**
 * The stable codes of PIDM diagnostics. Tests, quick fixes and the command line (`[code]` after each
 * message) rely on them: never rename one, add new ones.
 */
export const PidmIssueCodes = {
    /** A name that resolves to nothing (with a did-you-mean hint). */
    UnknownName: 'pidm.unknown-name',
    /** A name that matches several declarations ignoring case and none exactly. */
    AmbiguousName: 'pidm.ambiguous-name',
    /** A name that resolved only ignoring case; the quick fix rewrites the declared spelling. */
    CaseMismatch: 'pidm.case-mismatch',
    /** Two entities of the workspace share a name. */
    DuplicateEntity: 'pidm.duplicate-entity',
    /** Two members (attributes, references, the identifier) of an entity share a name. */
    DuplicateMember: 'pidm.duplicate-member',
    /** Two queries of the workspace share a name. */
    DuplicateQuery: 'pidm.duplicate-query',
    /** Two aliases of a query (FROM, INCLUDE, or SELECT … AS) share a name. */
    DuplicateAlias: 'pidm.duplicate-alias',
    /** An entity declares more than one `id`. */
    MultipleIds: 'pidm.multiple-ids',
    /** An entity without `id`: it gets the surrogate identifier `_id`. */
    MissingId: 'pidm.missing-id',
    /** A cardinality that admits nothing or is not a whole number: `[0]`, `[2..1]`, `[1.5]`. */
    InvalidCardinality: 'pidm.invalid-cardinality',
    /** A path continues after an attribute, where only a reference or an alias can lead on. */
    AttributeNotReference: 'pidm.attribute-not-reference',
    /** A SELECT / WHERE / ORDER BY path ends in a reference, alias or entity instead of an attribute. */
    ReferenceNotAttribute: 'pidm.reference-not-attribute',
    /** An INCLUDE path does not end in a reference. */
    IncludeNotReference: 'pidm.include-not-reference',
    /** A comparison between an attribute and a literal of another type. */
    TypeMismatch: 'pidm.type-mismatch',
    /** A named parameter compared with attributes of two types (a date in one place, a text in another). */
    ParameterTypeConflict: 'pidm.parameter-type-conflict',
    /** A parameter string that is neither `"?"` nor `"?name"`. */
    InvalidParameter: 'pidm.invalid-parameter',
    /** A path walks a single-valued reference no INCLUDE covers: it is included implicitly. */
    ImplicitInclude: 'pidm.implicit-include',
    /** A path walks a multi-valued reference no INCLUDE covers. */
    PathNotIncluded: 'pidm.path-not-included',
    /** The same attribute appears twice in ORDER BY. */
    DuplicateSortKey: 'pidm.duplicate-sort-key',
    /** A query selects nothing. */
    EmptySelect: 'pidm.empty-select',
    /** An entity no query reaches: no collection will hold its data. */
    UnreachableEntity: 'pidm.unreachable-entity',
    /** A workload says the same figure twice (a query's rate, an operation on a target, a count, a size). */
    DuplicateWorkloadFigure: 'pidm.duplicate-workload-figure',
    /** `create` or `delete` of an attribute or reference: instances are created and deleted whole. */
    WorkloadMemberOperation: 'pidm.workload-member-operation',
    /** `update E.id`: an identifier names its instance; changing it is a delete and a create. */
    UpdateIdentifier: 'pidm.update-identifier',
    /** `size E.x` where `x` is not a reference. */
    SizeNotReference: 'pidm.size-not-reference',
    /** A reference's average size outside what its cardinality admits (`size E.r 3` for `[1]`). */
    SizeOutsideCardinality: 'pidm.size-outside-cardinality',
    /** An entity count that is not a whole number of at least 1. */
    InvalidCount: 'pidm.invalid-count',
    /** A `database` name that is not letters, digits and `_` (not starting with a digit): `database "clinic-v1"`. */
    InvalidDatabaseName: 'pidm.invalid-database-name',
    /** A model that declares its database more than once (in one file or across its files). */
    DuplicateDatabase: 'pidm.duplicate-database',
} as const;

/** One of the PIDM issue codes. */
export type PidmIssueCode = (typeof PidmIssueCodes)[keyof typeof PidmIssueCodes];
