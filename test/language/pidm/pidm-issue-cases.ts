/** The PIDM issue cases: a base model and, per issue code, a model where it fires and a corrected one (pidm-validator.test.ts, pidm-batch-parser.test.ts). */
import { PidmIssueCodes } from '../../../src/language/pidm/pidm-validator.js';

/** A model every case extends; its own query reaches every entity and raises nothing. */
export const BASE = `
entity Passenger {
  id idPassport
  firstname text
  age int
  height float
  vip boolean
  birthdate date
  arrival time
  seen datetime
  ref Flight[*] flights
  ref Flight[1] current
}
entity Flight { id code  ref Airport[1] origin  ref Airport[*] stops }
entity Airport { id cao  city text }
query Base: select P.idPassport, O.city from Passenger as P include P.flights as FL, FL.origin as O, FL.stops as S
`;

export type Severity = 'error' | 'warning' | 'info';
export const SEVERITY: Record<Severity, number> = { error: 1, warning: 2, info: 3 };

/** [code, severity, a model where it fires (and the text it marks), a similar model where it does not]. */
export const CASES: [string, Severity, string, string, string][] = [
    [
        PidmIssueCodes.DuplicateEntity,
        'error',
        'entity Airport { id x }',
        'Airport',
        'entity Harbour { id x }  query H: select x from Harbour',
    ],
    [
        PidmIssueCodes.DuplicateQuery,
        'error',
        'query Base: select age from Passenger',
        'Base',
        'query Other: select age from Passenger',
    ],
    [
        PidmIssueCodes.DuplicateMember,
        'error',
        'entity E { id k  name text  name int }  query E1: select k from E',
        'name',
        'entity E { id k  name text  label int }  query E1: select k from E',
    ],
    [
        PidmIssueCodes.DuplicateAlias,
        'error',
        'query D: select age from Passenger include Passenger.flights as X, X.origin as X',
        'X',
        'query D: select age from Passenger include Passenger.flights as X, X.origin as Y',
    ],
    [
        PidmIssueCodes.MultipleIds,
        'error',
        'entity E { id k  id j }  query E1: select k from E',
        'id',
        'entity E { id k  j text }  query E1: select k from E',
    ],
    [
        PidmIssueCodes.MissingId,
        'warning',
        'entity E { k text }  query E1: select k from E',
        'E',
        'entity E { id k }  query E1: select k from E',
    ],
    [
        PidmIssueCodes.InvalidCardinality,
        'error',
        'entity E { id k  ref Airport[0] a }  query E1: select k from E',
        '[0]',
        'entity E { id k  ref Airport[0..1] a }  query E1: select k from E',
    ],
    [
        PidmIssueCodes.CaseMismatch,
        'warning',
        'query C: select FirstName from Passenger',
        'FirstName',
        'query C: select firstname from Passenger',
    ],
    [
        PidmIssueCodes.AttributeNotReference,
        'error',
        'query A: select firstname.x from Passenger',
        'firstname',
        'query A: select current.code from Passenger include Passenger.current',
    ],
    [
        PidmIssueCodes.ReferenceNotAttribute,
        'error',
        'query R: select age from Passenger include Passenger.current as C order by C',
        'C',
        'query R: select age from Passenger include Passenger.current as C order by C.code',
    ],
    [
        PidmIssueCodes.IncludeNotReference,
        'error',
        'query I: select age from Passenger include Passenger.firstname as F',
        'firstname',
        'query I: select age from Passenger include Passenger.current as F',
    ],
    [
        PidmIssueCodes.TypeMismatch,
        'error',
        'query T: select age from Passenger where age > "old"',
        '"old"',
        'query T: select age from Passenger where age > 30',
    ],
    [
        PidmIssueCodes.ParameterTypeConflict,
        'error',
        'query T: select age from Passenger where birthdate >= "?x" and firstname = "?x"',
        '"?x"',
        'query T: select age from Passenger where birthdate >= "?x" and firstname = "?name"',
    ],
    [
        PidmIssueCodes.InvalidParameter,
        'warning',
        'query T: select age from Passenger where age > "?min age"',
        '"?min age"',
        'query T: select age from Passenger where age > "?min_age"',
    ],
    [
        PidmIssueCodes.ImplicitInclude,
        'warning',
        'query J: select current.code from Passenger',
        'current',
        'query J: select C.code from Passenger include Passenger.current as C',
    ],
    [
        PidmIssueCodes.PathNotIncluded,
        'error',
        'query J: select flights.code from Passenger',
        'flights',
        'query J: select flights.code from Passenger include Passenger.flights',
    ],
    [
        PidmIssueCodes.DuplicateSortKey,
        'warning',
        'query S: select age from Passenger order by age asc, firstname, age desc',
        'age desc',
        'query S: select age from Passenger order by age asc, firstname',
    ],
    [PidmIssueCodes.EmptySelect, 'error', 'query N: select from Passenger', 'N', 'query N: select age from Passenger'],
    [
        PidmIssueCodes.UnreachableEntity,
        'info',
        'entity Crew { id badge }',
        'Crew',
        'entity Crew { id badge }  query K: select badge from Crew',
    ],
    [
        PidmIssueCodes.DuplicateWorkloadFigure,
        'error',
        'workload { query Base 3  update Passenger.age 1 }  workload { update Passenger.age 2 }',
        'update Passenger.age 2',
        'workload { query Base 3  update Passenger.age 1 }  workload { update Passenger.height 2 }',
    ],
    [
        PidmIssueCodes.WorkloadMemberOperation,
        'error',
        'workload { create Passenger.firstname 2 }',
        'firstname',
        'workload { create Passenger 2 }',
    ],
    [
        PidmIssueCodes.UpdateIdentifier,
        'error',
        'workload { update Passenger.idPassport 1 }',
        'idPassport',
        'workload { update Passenger.firstname 1 }',
    ],
    [
        PidmIssueCodes.SizeNotReference,
        'error',
        'workload { size Passenger.age 4 }',
        'age',
        'workload { size Passenger.flights 4 }',
    ],
    [
        PidmIssueCodes.SizeOutsideCardinality,
        'error',
        'workload { size Passenger.current 2 }',
        '2',
        'workload { size Passenger.current 1 }',
    ],
    [PidmIssueCodes.InvalidCount, 'error', 'workload { count Flight 0.5 }', '0.5', 'workload { count Flight 500 }'],
    [PidmIssueCodes.InvalidDatabaseName, 'error', 'database "air-flights"', '"air-flights"', 'database air_flights'],
    [
        PidmIssueCodes.DuplicateDatabase,
        'error',
        'database airflights\ndatabase flights',
        'flights',
        'database airflights',
    ],
];
