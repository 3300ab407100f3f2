/*  LogicScore backward chaining over the propositions of one long-form answer.

    Called through peirce.engine.prolog_runtime:call_json("chain.pl", "logicscore_chain", In).

    In (a dict built from JSON):
        props    [_{id: "P1", entities: ["e1", "e2"], premise: true}, ...]
                 premise is false for a proposition written as a conclusion ("Thus, ...").
        source   the entity the search starts from (the gold answer, or a choice alternative).
        targets  the entities a chain may end at (the question's entities).
        blocked  entities a chain may reach but not pass through (other choice alternatives).

    Each call asserts its facts into a fresh module, and the tables and facts are dropped when it
    ends, so calls never see each other's data. Entity and proposition names arrive as JSON
    strings and become atoms; nothing is ever read as Prolog text.

    A proposition links every two entities it mentions (Eq. 2 of LogicScore: the conjunction is
    realised through entity alignment). reach/4 is tabled with a lattice mode that keeps, for each
    entity, the shortest chain of propositions from the source (ties broken by the standard order
    of terms, so the answer is deterministic); left recursion terminates under tabling.

    Out:
        reached  [_{entity: E, path: ["P1", ...]}, ...]  every entity a chain reaches
        chains   the reached entries whose entity is a target
        cycle    _{entities: [...], props: [...]} for a loop in the part of the graph reachable
                 from the source (the reasoning returns to an entity it already used), or null
*/

:- module(chain, [logicscore_chain/2]).

:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(gensym)).

:- table reach(_, _, _, lattice(shorter/3)).

logicscore_chain(In, Out) :-
    gensym(peirce_chain_, M),
    setup_call_cleanup(load_facts(M, In),
                       solve(M, In, Out),
                       cleanup(M)).

load_facts(M, In) :-
    dynamic(M:mention/2), dynamic(M:premise/1), dynamic(M:blocked/1),
    forall(member(P, In.props), load_prop(M, P)),
    (   get_dict(blocked, In, Blocked) -> true ; Blocked = [] ),
    forall(member(B, Blocked), ( atom_string(BA, B), assertz(M:blocked(BA)) )).

load_prop(M, P) :-
    atom_string(Id, P.id),
    forall(member(E, P.entities), ( atom_string(EA, E), assertz(M:mention(Id, EA)) )),
    (   P.premise == true -> assertz(M:premise(Id)) ; true ).

cleanup(M) :-
    abolish_table_subgoals(chain:reach(M, _, _, _)),
    retractall(M:mention(_, _)), retractall(M:premise(_)), retractall(M:blocked(_)).

solve(M, In, Out) :-
    atom_string(S, In.source),
    maplist([T, A]>>atom_string(A, T), In.targets, Targets),
    findall(E-Path, reach(M, S, E, Path), Pairs0),
    sort(Pairs0, Pairs),
    maplist(reached_json, Pairs, Reached),
    include(is_target(Targets), Pairs, Hits),
    maplist(reached_json, Hits, Chains),
    (   once(cycle(M, S, Es, Ps))
    ->  Cycle = _{entities: Es, props: Ps}
    ;   Cycle = null
    ),
    Out = _{reached: Reached, chains: Chains, cycle: Cycle}.

reached_json(E-Path, _{entity: E, path: Path}).

%  is_target(+Targets, +Pair): the pair's entity is a target. (Not a lambda: a yall lambda that
%  names Targets without declaring it free, as Targets/[E-_]>>..., sees Targets unbound when it is
%  compiled, which happens when library(yall) was loaded before this file, and every pair passes.)
is_target(Targets, E-_) :-
    memberchk(E, Targets).

%  link(+M, +X, -P, -Y): premise P mentions X and Y; a blocked entity is never passed through.
link(M, X, P, Y) :-
    M:mention(P, X), M:premise(P), M:mention(P, Y), Y \== X.

reach(M, S, Y, [P]) :-
    link(M, S, P, Y).
reach(M, S, Y, Path) :-
    reach(M, S, Z, P0),
    Z \== S,
    \+ M:blocked(Z),
    link(M, Z, P, Y),
    Y \== S,
    \+ memberchk(P, P0),
    append(P0, [P], Path).

shorter(A, B, C) :-
    length(A, LA), length(B, LB),
    (   LA < LB -> C = A
    ;   LB < LA -> C = B
    ;   A @=< B -> C = A
    ;   C = B
    ).

%  cycle(+M, +S, -Entities, -Props): a depth-first walk over the entity/proposition graph from S
%  meets a node that is already on its own path. Until a loop is met the explored part is a
%  tree, so the walk is linear in the size of the graph.
cycle(M, S, Es, Ps) :-
    walk(M, e(S), none, [e(S)], Loop),
    include([X]>>(X = e(_)), Loop, EN), maplist([e(X), X]>>true, EN, Es),
    include([X]>>(X = p(_)), Loop, PN), maplist([p(X), X]>>true, PN, Ps).

walk(M, Node, Parent, Stack, Loop) :-
    neighbour(M, Node, Next),
    Next \== Parent,
    (   nth1(I, Stack, Next)
    ->  length(Pre, I), append(Pre, _, Stack), reverse(Pre, Loop0),
        append(Loop0, [Next], Loop)
    ;   walk(M, Next, Node, [Next|Stack], Loop)
    ).

neighbour(M, e(X), p(P)) :-
    \+ M:blocked(X),
    M:mention(P, X), M:premise(P).
neighbour(M, p(P), e(X)) :-
    M:mention(P, X).
