/*  Procedures as logic: check an executed (or generated) sequence of steps against a
    precedence graph and the objects each step needs and produces.

    Called through peirce.engine.prolog_runtime:call_json("procedure.pl", "check_procedure", In).

    In (a dict built from JSON; every name is a JSON string and becomes an atom, never code):
        steps      ["s1", ...]                   the steps of the procedure
        edges      [["p", "s"], ...]             p must be done before s
        needs      [["s", "egg"], ...]           step s uses object egg
        produces   [["s", "batter"], ...]        step s makes object batter
        available  ["egg", ...]                  objects at hand before the first step
        sequence   ["s1", "s3", ...]             the steps as executed, in order
        initial    ["START"]                     steps taken as done before the sequence
        final      ["END"]                       steps taken as done after it (the sequence claims
                                                 to complete the procedure)

    Facts of one call go into a fresh module, and the module's facts and tables are dropped when
    the call ends, so calls never see each other's data.

    A step's position is where it first occurs in the sequence (initial steps: 0; final steps:
    length + 1). The rules:

    order        s is done at position i, p at position j > i, and p is a prerequisite of s:
                 there is a path p -> ... -> s (precedence is the transitive closure of the
                 edges). Evidence: the shortest such path, and the edges on it whose order the
                 sequence breaks (a -> b with a done after b) or cannot keep (a never done).
    missing      p was never done but some step that was done (or a final step) depends on it,
                 directly or through other steps never done. Evidence: the edge p -> t to the
                 step t that needs it.
    unavailable  s is done at position i and needs object o, o was not available, and no step
                 done before i produces o. Evidence: the object and the steps that would produce
                 it (done later, or never).
    unknown      a step of the sequence that the procedure does not have.

    Out:
        order        [_{step, position, prerequisite, prerequisite_position, path, violated}, ...]
        missing      [_{step, needed_by}, ...]
        unavailable  [_{step, position, object, producers}, ...]
        unknown      [_{step, position}, ...]
*/

:- module(procedure, [check_procedure/2]).

:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(gensym)).

:- table link(_, _, _, lattice(shorter/3)).
:- table needed(_, _).

check_procedure(In, Out) :-
    gensym(peirce_procedure_, M),
    setup_call_cleanup(load_facts(M, In),
                       solve(M, Out),
                       cleanup(M)).

%  ------------------------------------------------------------------------------------------
%  Facts

load_facts(M, In) :-
    forall(member(F, [step/1, edge/2, needs/2, produces/2, available/1, done/2]),
           dynamic(M:F)),
    field(In, steps, Steps),
    forall(member(S, Steps), ( atom_string(A, S), assertz(M:step(A)) )),
    field(In, edges, Edges),
    forall(member([P, S], Edges), assert_pair(M, edge, P, S)),
    field(In, needs, Needs),
    forall(member([S, O], Needs), assert_pair(M, needs, S, O)),
    field(In, produces, Produces),
    forall(member([S, O], Produces), assert_pair(M, produces, S, O)),
    field(In, available, Available),
    forall(member(O, Available), ( atom_string(A, O), assertz(M:available(A)) )),
    field(In, initial, Initial),
    forall(member(S, Initial), assert_done(M, S, 0)),
    field(In, sequence, Seq),
    forall(nth1(I, Seq, S), assert_done(M, S, I)),
    length(Seq, N),
    End is N + 1,
    field(In, final, Final),
    forall(member(S, Final), assert_done(M, S, End)).

field(In, Key, Value) :-
    (   get_dict(Key, In, V), is_list(V) -> Value = V ; Value = [] ).

assert_pair(M, Name, X, Y) :-
    atom_string(A, X),
    atom_string(B, Y),
    Fact =.. [Name, A, B],
    assertz(M:Fact).

%  A step's position is its first occurrence.
assert_done(M, S, I) :-
    atom_string(A, S),
    (   M:done(A, _) -> true ; assertz(M:done(A, I)) ).

cleanup(M) :-
    abolish_table_subgoals(procedure:link(M, _, _, _)),
    abolish_table_subgoals(procedure:needed(M, _)),
    forall(member(F, [step/1, edge/2, needs/2, produces/2, available/1, done/2]),
           ( F = Name/Arity, functor(H, Name, Arity), retractall(M:H) )).

%  ------------------------------------------------------------------------------------------
%  Rules

%!  link(+M, ?P, ?S, -Path) is nondet.
%   P is a prerequisite of S: Path is the shortest path P -> ... -> S.
link(M, P, S, [P, S]) :-
    M:edge(P, S).
link(M, P, S, [P|Rest]) :-
    M:edge(P, Q),
    link(M, Q, S, Rest).

shorter(A, B, C) :-
    length(A, LA),
    length(B, LB),
    (   LA < LB -> C = A
    ;   LB < LA -> C = B
    ;   A @=< B -> C = A
    ;   C = B
    ).

order_error(M, S, I, P, J, Path, Violated) :-
    M:done(S, I),
    link(M, P, S, Path),
    M:done(P, J),
    J > I,
    broken_edges(M, Path, Violated).

%   The edges of a path whose order the sequence breaks, or cannot keep (a step never done).
broken_edges(_, [_], []) :- !.
broken_edges(M, [A, B|Rest], Broken) :-
    broken_edges(M, [B|Rest], Broken0),
    (   M:done(A, JA), M:done(B, JB), JA =< JB
    ->  Broken = Broken0
    ;   Broken = [[A, B]|Broken0]
    ).

%!  needed(+M, ?S) is nondet.
%   S was done, or something that was done (or is final) depends on it.
needed(M, S) :-
    M:done(S, _).
needed(M, S) :-
    M:edge(S, T),
    needed(M, T).

missing_step(M, P, T) :-
    M:step(P),
    \+ M:done(P, _),
    needed(M, P),
    once(( M:edge(P, T), M:done(T, _)
         ; M:edge(P, T), needed(M, T)
         )).

unavailable_object(M, S, I, O, Producers) :-
    M:done(S, I),
    M:needs(S, O),
    \+ M:available(O),
    \+ ( M:produces(T, O), M:done(T, J), J < I ),
    findall(T, M:produces(T, O), Producers0),
    sort(Producers0, Producers).

unknown_step(M, S, I) :-
    M:done(S, I),
    \+ M:step(S).

%  ------------------------------------------------------------------------------------------
%  Answer

solve(M, Out) :-
    findall(I-_{step: S, position: I, prerequisite: P, prerequisite_position: J, path: Path,
                violated: Violated},
            order_error(M, S, I, P, J, Path, Violated),
            Orders),
    findall(P-_{step: P, needed_by: T}, missing_step(M, P, T), Missing),
    findall(I-_{step: S, position: I, object: O, producers: Ps},
            unavailable_object(M, S, I, O, Ps),
            Unavailable),
    findall(I-_{step: S, position: I}, unknown_step(M, S, I), Unknown),
    maplist(values, [Orders, Missing, Unavailable, Unknown], [O1, O2, O3, O4]),
    Out = _{order: O1, missing: O2, unavailable: O3, unknown: O4}.

values(Pairs, Values) :-
    msort(Pairs, Sorted),
    pairs_values(Sorted, Values).
