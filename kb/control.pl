/*  peirce: Prolog's control constructs and safe libraries, run with proofs.

    Loaded by kb/meta.pl.  A goal of a clause body or a query that is a control construct
    (disjunction, if-then-else, soft cut, negation as failure, cut, the all-solutions
    predicates, call/N) or a predicate of the safe libraries (library(lists), library(apply),
    atoms and strings, format/1,2) is read as data into one literal

        'c:$ctl'('$goal'(Goal))

    whose argument is the goal as written.  When a clause or query holding one is built
    (ctl_literal/2 at reading, ctl_build/2 at building), the goal is translated into the form
    solved here, every goal inside it checked: a relation of the program ('p:' or 'n:'
    prefixed, so it never names a predicate of the system), a pure built-in of meta.pl's
    whitelist, a predicate of lib/2 below, or a construct of this file; anything else is refused
    with the reason.  call/N does the same check when it runs, on the goal it is given.

    The solver (collect/4) is depth first, clauses in order, with SWI-Prolog's semantics: a cut
    prunes the clause alternatives of its parent and the choices of the goals before it in the
    clause (prolog_current_choice/1 and prolog_cut_to/1), transparent through (;)/2 and (->)/2
    and opaque in a condition, \+, call/N and the all-solutions predicates.  Answers come in
    SWI-Prolog's order, repeats kept.  A branch that reaches the depth limit stops the whole
    search (status depth), so the answers given are always the first ones SWI-Prolog gives.

    Proofs: besides meta.pl's n(Id, Goal, Subproofs) and b(Goal), a control node
    c(Kind, Goal, Subproofs), Goal the construct as written, Kind what happened (which branch,
    "no proof of G", how many solutions); the proofs of an all-solutions goal are shown for
    the first few solutions and summarised after.

    Output of format/1,2, write/1, print/1, writeln/1 and nl/0 goes to a buffer of the query
    (bounded), that Python takes with the api operation output; format's directives are checked
    first: ~@ (which calls a goal) is refused.

    Kept whole (past 400 lines): reading a control construct as data, checking every goal inside
    it and solving it are one translation, and the cut's semantics need the reader's and the
    solver's forms of a goal side by side.
*/
:- module(peirce_control, [ctl_literal/2, ctl_build/2, collect/5, take_output/1,
                            read_op/3, read_options/1, last_inferences/1]).

:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(error)).           % (lists calls must_be/2: loaded now, not in a query)

%  ------------------------------------------------------------------------------------------
%  Reading: which goals are read as control literals

%!  ctl_literal(+Goal, -Literal) is semidet.
%   Goal is a construct or library goal of this file: Literal is its data literal, after the
%   goals inside it were checked (a goal that is not allowed raises error(peirce(Why), _)).
ctl_literal(G, 'c:$ctl'('$goal'(G))) :-
    callable(G),
    ctl_goal(G),
    \+ \+ ctl(G, _).

ctl_goal(G) :- functor(G, N, A), ( construct(N, A) ; lib(N, A) ; meta(N, A) ), !.

construct(',', 2).  construct((;), 2).  construct((->), 2). construct((*->), 2).
construct((\+), 1). construct(not, 1).  construct(!, 0).    construct(fail, 0).
construct(false, 0).
construct(findall, 3). construct(findall, 4). construct(bagof, 3). construct(setof, 3).
construct(forall, 2).  construct(aggregate_all, 3).
construct(call, A) :- between(1, 8, A).
construct(phrase, 2). construct(phrase, 3).

%   Pure library predicates (called as they are: none calls a goal, none reaches the system).
lib(numlist, 3).      lib(permutation, 2).  lib(select, 3).       lib(selectchk, 3).
lib(subtract, 3).     lib(intersection, 3). lib(union, 3).        lib(delete, 3).
lib(reverse, 2).      lib(sort, 4).         lib(list_to_set, 2).  lib(sumlist, 2).
lib(select, 4).       lib(nextto, 3).       lib(max_member, 2).   lib(min_member, 2).
lib(flatten, 2).
lib(atom_codes, 2).   lib(atom_chars, 2).   lib(char_code, 2).    lib(sub_atom, 5).
lib(number_codes, 2). lib(atom_number, 2).  lib(upcase_atom, 2).  lib(downcase_atom, 2).
lib(string_concat, 3). lib(split_string, 4). lib(atom_string, 2). lib(number_string, 2).
lib(string_chars, 2). lib(string_codes, 2). lib(string_to_atom, 2). lib(string_length, 2).
lib(string, 1).       lib(atomic_list_concat, 2). lib(atomic_list_concat, 3).
lib(functor, 3).      lib(arg, 3).          lib((=..), 2).        lib(copy_term, 2).
lib(compound, 1).     lib(callable, 1).     lib(float, 1).        lib(append, 2).
lib(format, 1).       lib(format, 2).       lib(write, 1).        lib(print, 1).
lib(writeln, 1).      lib(nl, 0).           lib(write_canonical, 1). lib(writeq, 1).
lib(tab, 1).           lib(code_type, 2).    lib(char_type, 2).    lib(last, 2).

%   Library predicates that call goals: run here, with the proofs of the goals they call.
meta(maplist, A) :- between(2, 5, A).
meta(foldl, A) :- between(4, 6, A).
meta(include, 3). meta(exclude, 3). meta(partition, 4). meta(predsort, 3).

%  ------------------------------------------------------------------------------------------
%  op/3 declarations of a program text, applied to reading the rest of it (never run as a
%  directive): the first one makes a module of its own for the reading (peirce_read_N), in
%  which each declaration is made; at most 100 per text, each checked first.

%!  read_op(+Priority, +Type, +Names)
read_op(P, T, N) :-
    peirce_meta:op_names(P, T, N, Ns),
    nb_getval(peirce_read_ops, Ops0),
    (   Ops0 = ops(M, K0) -> true
    ;   flag(peirce_read_module, I, I + 1), format(atom(M), "peirce_read_~d", [I]), K0 = 0
    ),
    length(Ns, Kn),
    K1 is K0 + Kn,
    (   K1 > 100 -> refuse("op/3: more than 100 operators declared in one text") ; true ),
    catch(op(P, T, M:Ns), error(E, _), ( message_text_(E, Msg), refuse(Msg) )),
    nb_setval(peirce_read_ops, ops(M, K1)).

message_text_(E, Msg) :- format(string(Msg), "op/3: ~q", [E]).

%!  read_options(-Options): the reader's module when the text declared operators.
read_options(Opts) :-
    (   nb_current(peirce_read_ops, ops(M, _)) -> Opts = [module(M)] ; Opts = [] ).

%  ------------------------------------------------------------------------------------------
%  Translation: a goal as written -> the form the solver runs

%!  ctl_build(+Raw, -Goal): the goal of a control literal, translated (see ctl/2).
ctl_build('$goal'(G), X) :- ctl(G, X).

ctl(V, call(V, [])) :- var(V), !.
ctl((A, B), and(X, Y)) :- !, ctl(A, X), ctl(B, Y).
ctl((C -> T ; E), ite(X, Y, Z, (C -> T ; E))) :- !, ctl(C, X), ctl(T, Y), ctl(E, Z).
ctl((C *-> T ; E), soft(X, Y, Z, (C *-> T ; E))) :- !, ctl(C, X), ctl(T, Y), ctl(E, Z).
ctl((A ; B), or(X, Y, (A ; B))) :- !, ctl(A, X), ctl(B, Y).
ctl((C -> T), ite(X, Y, fail, (C -> T))) :- !, ctl(C, X), ctl(T, Y).
ctl((C *-> T), soft(X, Y, fail, (C *-> T))) :- !, ctl(C, X), ctl(T, Y).
ctl(\+ G, not(X, G)) :- !, ctl(G, X).
ctl(not(G), not(X, G)) :- !, ctl(G, X).
ctl(!, cut) :- !.
ctl(true, true) :- !.
ctl(fail, fail) :- !.
ctl(false, fail) :- !.
ctl(findall(T, G, L), findall(T, X, L, G)) :- !, ctl(G, X).
ctl(findall(T, G, L, Tl), findall4(T, X, L, Tl, G)) :- !, ctl(G, X).
ctl(forall(C, A), forall(X, Y, C, A)) :- !, ctl(C, X), ctl(A, Y).
ctl(bagof(T, G, L), bagof(T, Ex, X, L, bagof(T, G, L))) :- !, carets(G, Ex, G1), ctl(G1, X).
ctl(setof(T, G, L), setof(T, Ex, X, L, setof(T, G, L))) :- !, carets(G, Ex, G1), ctl(G1, X).
ctl(aggregate_all(S, G, R), aggregate(S, X, R, aggregate_all(S, G, R))) :- !,
    (   aggregate_spec(S) -> true
    ;   refuse("aggregate_all/3 takes count, sum(E), max(E), min(E), bag(T) or set(T)")
    ),
    ctl(G, X).
ctl(G, call(F, Args)) :-    % the goal is checked now when it is known, and when it runs
    compound(G), compound_name_arguments(G, call, [F|Args]), !,
    (   var(F) -> true
    ;   callable(F) -> F =.. L0, append(L0, Args, L1), G1 =.. L1, \+ \+ ctl(G1, _)
    ;   format(string(M), "not a goal: ~q", [F]), refuse(M)
    ).
ctl(phrase(B, L), X) :- !, ctl(phrase(B, L, []), X).
ctl(phrase(B, L, R), X) :- !,
    (   var(B)
    ->  X = call(B, [L, R])
    ;   catch(dcg_translate_rule(('$phrase' --> B), Clause), _, fail),
        (   Clause = (H :- Body) -> true ; H = Clause, Body = true ),
        H = '$phrase'(L, R)
    ->  ctl(Body, X)
    ;   refuse("phrase/2,3: the grammar body cannot be translated")
    ).
ctl(G, meta(G)) :- functor(G, N, A), meta(N, A), !.
ctl(-(G), rel(L, -(G))) :- callable(G), !, peirce_meta:relation(G, 'n:', L).
ctl(G, bi(G)) :- callable(G), functor(G, N, A), peirce_meta:builtin(N, A), !.
ctl(G, lib(G)) :- functor(G, N, A), lib(N, A), !, lib_check(G).
ctl(G, _) :- \+ callable(G), !,
    format(string(M), "not a goal: ~q", [G]), refuse(M).
ctl(G, rel(L, G)) :-
    functor(G, N, A),
    (   peirce_meta:control(G, Why)
    ->  refuse(Why)
    ;   system_only(G)
    ->  format(string(M), "~q/~d is a Prolog built-in that is not allowed here", [N, A]),
        refuse(M)
    ;   peirce_meta:relation(G, 'p:', L)
    ).

%   A predicate of the system that is not in a whitelist (open/3, shell/1, assert/1, ...).
system_only(G) :-
    catch(predicate_property(system:G, defined), _, fail),
    \+ catch(predicate_property(system:G, dynamic), _, fail).

carets(G, [], G) :- var(G), !.
carets(V^G, [V|Vs], G1) :- !, carets(G, Vs, G1).
carets(G, [], G).

aggregate_spec(S) :- var(S), !, fail.
aggregate_spec(count).
aggregate_spec(count(_)).
aggregate_spec(sum(_)).
aggregate_spec(max(_)).
aggregate_spec(min(_)).
aggregate_spec(bag(_)).
aggregate_spec(set(_)).

lib_check(format(F, _)) :- !, format_check(F).
lib_check(format(F)) :- !, format_check(F).
lib_check(_).

%!  format_check(+Format): a format text without a directive that calls a goal (~@).  A
%   format that is not yet known (a variable) is checked when it runs.
format_check(F) :- var(F), !.
format_check(F) :-
    (   catch(text_to_string(F, S), _, fail) -> true ; refuse("format/2: the format must be text") ),
    string_codes(S, Cs),
    (   phrase(directives(Ds), Cs) -> true ; refuse("format/2: a format directive cannot be read") ),
    (   memberchk(0'@-_, Ds)
    ->  refuse("format/2: the directive ~@ calls a goal; it is not allowed")
    ;   memberchk(0'W-_, Ds)
    ->  refuse("format/2: the directive ~W takes write options that can call a goal; it is not allowed")
    ;   memberchk(_-star, Ds)
    ->  refuse("format/2: a column argument * is not allowed (write the number)")
    ;   member(_-N, Ds), integer(N), N > 10000
    ->  refuse("format/2: a directive's argument is more than 10000")
    ;   true
    ).

%   The directives of a format text, each Code-Argument (none, star, a number, a character).
directives(Ds) --> [0'~], !, dir_arg(A), [D], { Ds = [D-A|Ds1] }, directives(Ds1).
directives(Ds) --> [_], !, directives(Ds).
directives([]) --> [].

dir_arg(char) --> [0'`], !, [_].
dir_arg(star) --> [0'*], !.
dir_arg(N) --> digits_(Cs), { Cs == [] -> N = none ; number_codes(N, Cs) }.
digits_([C|Cs]) --> [C], { code_type(C, digit) }, !, digits_(Cs).
digits_([]) --> [].

refuse(Msg) :- throw(error(peirce(Msg), _)).

%  ------------------------------------------------------------------------------------------
%  The solver

%!  collect(+Limit, +Inferences, +Goals, +Ctx, +Acc)
%   Up to Limit answers of the query Goals (a list of body literals), depth first, in order:
%   each Goals-Proofs added to the front of Acc's first argument (as meta.pl's collect/6 does).
%   Ctx is meta.pl's ctx(M, MaxD, St, Deadline, _); a branch deeper than MaxD stops the search
%   (St's flag set: status depth); a search that makes more than Inferences inferences of the
%   program stops it too (Acc's second argument set: status inferences).
%
%   Inferences are counted as SWI-Prolog counts them when it runs the program itself, not as
%   the steps of this solver (some ten of its own per inference of the program): one for each
%   call of a relation, of a built-in or of call/N and the all-solutions predicates, and, for a
%   built-in or library predicate written in Prolog or one that gives many answers (member/2,
%   between/3, select/3, permutation/2, ...), the inferences SWI-Prolog makes inside it, its
%   answers on backtracking included (counted/2).  The count is a term k(Count, Max) in the
%   context, changed in place (nb_setarg/3), so that work undone by backtracking still counts.
collect(Limit, Inf, Goals, Ctx0, Acc) :-
    Ctx0 = ctx(M, MaxD, St, Deadline, _),
    Ctx = ctx(M, MaxD, St, Deadline, k(0, Inf)),
    nb_setval(peirce_out, ""),
    call_cleanup(
        catch(( limit(Limit, ( barrier(Ch),
                               body_top(Goals, Ch, Ctx, 0, Proofs) )),
                arg(1, Acc, L0),
                nb_setarg(1, Acc, [Goals-Proofs|L0]),
                fail
              ; true
              ),
              E,
              stopped(E, St, Acc)),
        ( arg(5, Ctx, k(N, _)), nb_setval(peirce_inferences, N) )).

%!  last_inferences(-N): the inferences of the program the last query made (see collect/5).
last_inferences(N) :- ( nb_current(peirce_inferences, N) -> true ; N = 0 ).

stopped(peirce_depth, St, _) :- !, nb_setarg(1, St, true).
stopped(peirce_inferences, _, Acc) :- !, nb_setarg(2, Acc, inferences).
stopped(E, _, _) :- throw(E).

%   charge(+Ctx, +N): N more inferences of the program (an expression); past the bound, the
%   search stops.
charge(ctx(_, _, _, _, K), N) :-
    arg(1, K, N0),
    N1 is N0 + N,
    nb_setarg(1, K, N1),
    arg(2, K, Max),
    (   N1 > Max -> throw(peirce_inferences) ; true ).

%   counted(:Goal, +Ctx): Goal run as it is, charged the inferences SWI-Prolog makes in it: for
%   each answer, those since the call or since the backtracking that asked for it, and those
%   of the search that found no (more) answers.  A choice point of ours before Goal sees it
%   fail; one after an answer notes when backtracking comes back into Goal.  When Goal leaves
%   no choice point, neither do we.  A call counts one at least, as in SWI-Prolog.  (The
%   constants take away what this predicate itself makes between two readings of the count,
%   so that the counts are SWI-Prolog's: select/3 over ten items, ten; permutation/2 of five,
%   864.)
counted(G, C) :-
    statistics(inferences, I0),
    S = s(I0, 4, 1),
    prolog_current_choice(Ch00),
    (   prolog_current_choice(Ch0),
        call(G),
        statistics(inferences, I1),
        S = s(Is, Own, Least),
        charge(C, max(Least, I1 - Is - Own)),
        prolog_current_choice(Ch1),
        (   Ch1 == Ch0
        ->  prolog_cut_to(Ch00)
        ;   true
        ;   statistics(inferences, Ir),
            nb_setarg(1, S, Ir),
            nb_setarg(2, S, 4),
            nb_setarg(3, S, 0),
            fail
        )
    ;   statistics(inferences, I1),
        S = s(Is, Own, Least),
        charge(C, max(Least, I1 - Is - Own)),
        fail
    ).

%   Built-ins of meta.pl's whitelist written in Prolog or giving many answers (the others, as
%   =/2, is/2 or </2, are one inference each).
measured(member(_, _)).     measured(length(_, _)).    measured(between(_, _, _)).
measured(append(_, _, _)).  measured(nth0(_, _, _)).   measured(nth1(_, _, _)).
measured(last(_, _)).       measured(msort(_, _)).     measured(sort(_, _)).
measured(sum_list(_, _)).   measured(max_list(_, _)).  measured(min_list(_, _)).

%   bi(+Goal, +Ctx): a built-in of meta.pl's whitelist, counted
bi(G, C) :-
    (   measured(G)
    ->  (   peirce_meta:arithmetic(G) -> peirce_meta:within_memory(G) ; true ),
        counted(G, C)
    ;   charge(C, 1),
        peirce_meta:builtin_call(G)
    ).

%   At the top, one proof per literal of the query.
body_top([], _, _, _, []).
body_top([L|Ls], Ch, C, D, [P|Ps]) :-
    one(L, Ch, C, D, P),
    body_top(Ls, Ch, C, D, Ps).

one('$c'(X, _), Ch, C, D, P) :- !, node(X, Ch, C, D, P).
one(L, Ch, C, D, P) :- lit(L, Ch, C, D, [P], []).

%   lit(+Literal, +CutTo, +Ctx, +Depth, -Proofs, ?Tail): a stored body literal
lit('$c'(X, _), Ch, C, D, Ps, T) :- !, seq(X, Ch, C, D, Ps, T).
lit('$b'(G), _, C, _, [b(G)|T], T) :- !, bi(G, C).
lit(G, _, C, D, [P|T], T) :- step(G, C, D, P).

%   step(+Goal, +Ctx, +Depth, -Proof): a relation of the program, clauses in order
step(G, C, D, n(Id, G, Ps)) :-
    C = ctx(M, MaxD, _, Deadline, _),
    (   D >= MaxD -> throw(peirce_depth) ; true ),
    charge(C, 1),
    get_time(Now),
    (   Now > Deadline -> throw(peirce_time_limit) ; true ),
    D1 is D + 1,
    functor(G, N, A0),
    A is A0 + 2,
    current_predicate(M:N/A),
    barrier(Ch),
    call(M:G, Id, Body),
    body(Body, Ch, C, D1, Ps).

body([], _, _, _, []).
body([L|Ls], Ch, C, D, Ps) :-
    lit(L, Ch, C, D, Ps, T),
    body(Ls, Ch, C, D, T).

%   seq(+Goal, +CutTo, +Ctx, +Depth, -Proofs, ?Tail): a translated goal, its proof nodes
seq(and(A, B), Ch, C, D, Ps, T) :- !, seq(A, Ch, C, D, Ps, M), seq(B, Ch, C, D, M, T).
seq(true, _, _, _, T, T) :- !.
seq(X, Ch, C, D, [P|T], T) :- node(X, Ch, C, D, P).

%   node(+Goal, +CutTo, +Ctx, +Depth, -Proof): one proof node for a goal that is not a
%   conjunction
node(and(A, B), Ch, C, D, c(conj, (A1, B1), Ps)) :- !,
    seq(and(A, B), Ch, C, D, Ps, []), A1 = A, B1 = B.
node(true, _, _, _, b(true)) :- !.
node(fail, _, _, _, _) :- !, fail.
node(cut, Ch, _, _, c(cut, !, [])) :- !, prolog_cut_to(Ch).
node(rel(L, _), _, C, D, P) :- !, step(L, C, D, P).
node(bi(G), _, C, _, b(G)) :- !, bi(G, C).
node(lib(G), _, C, _, b(G)) :- !, lib_call(G, C).
node(or(A, B, G), Ch, C, D, c(K, G, Ps)) :- !,
    (   seq(A, Ch, C, D, Ps, []), K = left
    ;   seq(B, Ch, C, D, Ps, []), K = right
    ).
node(ite(X, Y, Z, G), Ch, C, D, c(K, G, Ps)) :- !,
    ( G = (Cond -> _ ; _) -> true ; G = (Cond -> _) ),
    (   opaque(X, C, D, PC)
    ->  K = then, Ps = [c(cond, Cond, PC)|PT], seq(Y, Ch, C, D, PT, [])
    ;   K = else, Ps = [c(nocond, Cond, [])|PE], seq(Z, Ch, C, D, PE, [])
    ).
node(soft(X, Y, Z, G), Ch, C, D, c(K, G, Ps)) :- !,
    ( G = (Cond *-> _ ; _) -> true ; G = (Cond *-> _) ),
    (   opaque(X, C, D, PC)
    *-> K = then, Ps = [c(cond, Cond, PC)|PT], seq(Y, Ch, C, D, PT, [])
    ;   K = else, Ps = [c(nocond, Cond, [])|PE], seq(Z, Ch, C, D, PE, [])
    ).
node(not(X, G), _, C, D, c(not, G, [])) :- !,
    \+ opaque(X, C, D, _).
node(findall(T, X, L, G), _, C, D, c(findall(N), findall(T, G, L), Ps)) :- !,
    charge(C, 1),
    findall(T-P, opaque(X, C, D, P), Pairs),
    pairs_keys_values(Pairs, L0, Proofs),
    length(L0, N),
    summary(Proofs, N, Ps),
    L = L0.
node(findall4(T, X, L, Tl, G), _, C, D, c(findall(N), findall(T, G, L, Tl), Ps)) :- !,
    charge(C, 1),
    findall(T-P, opaque(X, C, D, P), Pairs),
    pairs_keys_values(Pairs, L0, Proofs),
    length(L0, N),
    summary(Proofs, N, Ps),
    append(L0, Tl, L).
node(forall(X, Y, Cg, Ag), _, C, D, c(forall(N), forall(Cg, Ag), Ps)) :- !,
    charge(C, 1),
    findall(P, ( opaque(X, C, D, PC), once(opaque(Y, C, D, PA)),
                 P = [c(cond, Cg, PC), c(then, Ag, PA)] ), Ps0),
    \+ ( opaque(X, C, D, _), \+ opaque(Y, C, D, _) ),
    length(Ps0, N),
    summary(Ps0, N, Ps).
node(bagof(T, Ex, X, L, G), _, C, D, c(bagof(N), G, Ps)) :- !,
    charge(C, 1),
    bagof(T-P, Ex^C^D^opaque(X, C, D, P), Pairs),
    pairs_keys_values(Pairs, L, Proofs),
    length(L, N),
    summary(Proofs, N, Ps).
node(setof(T, Ex, X, L, G), _, C, D, c(setof(N), G, Ps)) :- !,
    charge(C, 1),
    bagof(T-P, Ex^C^D^opaque(X, C, D, P), Pairs),
    sort(1, @<, Pairs, Uniq),
    pairs_keys_values(Uniq, L, Proofs),
    length(L, N),
    summary(Proofs, N, Ps).
node(aggregate(S, X, R, G), _, C, D, c(aggregate(N), G, Ps)) :- !,
    charge(C, 1),
    template(S, T),
    findall(T-P, opaque(X, C, D, P), Pairs),
    pairs_keys_values(Pairs, Vs, Proofs),
    length(Vs, N),
    aggregate_value(S, Vs, R),
    summary(Proofs, N, Ps).
node(call(F, Args), _, C, D, P) :- !,
    charge(C, 1),
    (   var(F) -> throw(error(instantiation_error, _)) ; true ),
    (   callable(F) -> true ; throw(error(type_error(callable, F), _)) ),
    F =.. L0, append(L0, Args, L1), G =.. L1,
    ctl(G, X),
    barrier(Ch),
    seq(X, Ch, C, D, Ps, []),
    (   Ps = [P0], X \= and(_, _) -> P = P0 ; P = c(call, G, Ps) ).
node(meta(G), _, C, D, c(meta, G, Ps)) :- !,
    charge(C, 1),
    meta_run(G, C, D, Ps).

opaque(X, C, D, Ps) :- barrier(Ch), seq(X, Ch, C, D, Ps, []).

%   barrier(-Choice): a choice point of our own (its alternative fails) for a cut to prune to.
%   The newest choice point when a goal starts may be removed before a cut inside the goal runs
%   (the else-branch of a soft cut whose condition the goal is): this one lives as long as the
%   goal's alternatives.
barrier(Ch) :- ( prolog_current_choice(Ch) ; fail ).

template(count, x).
template(count(T), T).
template(sum(E), E).
template(max(E), E).
template(min(E), E).
template(bag(T), T).
template(set(T), T).

aggregate_value(count, Vs, N) :- length(Vs, N).
aggregate_value(count(_), Vs, N) :- length(Vs, N).
aggregate_value(sum(_), Vs, S) :- peirce_meta:builtin_call(sum_list(Vs, S)).
aggregate_value(max(_), Vs, M) :- Vs \== [], peirce_meta:builtin_call(max_list(Vs, M)).
aggregate_value(min(_), Vs, M) :- Vs \== [], peirce_meta:builtin_call(min_list(Vs, M)).
aggregate_value(bag(_), Vs, Vs).
aggregate_value(set(_), Vs, S) :- sort(Vs, S).

%   The proofs of the first solutions of an all-solutions goal, then how many more there were.
summary(Proofs, N, Ps) :-
    Shown = 5,
    (   N =< Shown
    ->  maplist(solution_node, Proofs, Ps)
    ;   length(First, Shown),
        append(First, _, Proofs),
        maplist(solution_node, First, Ps0),
        More is N - Shown,
        append(Ps0, [c(more(More), [], [])], Ps)
    ).

solution_node(Ps, c(solution, [], Ps)).

%   Library predicates that call goals
meta_run(G, C, D, Ps) :-
    G =.. [N, F|Args],
    meta_run(N, F, Args, C, D, Ps).

meta_run(maplist, F, Lists, C, D, Ps) :- maplist_(Lists, F, C, D, Ps).
meta_run(foldl, F, Args, C, D, Ps) :-
    append(Lists, [V0, V], Args),
    foldl_(Lists, F, V0, V, C, D, Ps).
meta_run(include, F, [L, In], C, D, Ps) :- filter(L, F, C, D, In, _, Ps).
meta_run(exclude, F, [L, Out], C, D, Ps) :- filter(L, F, C, D, _, Out, Ps).
meta_run(partition, F, [L, In, Out], C, D, Ps) :- filter(L, F, C, D, In, Out, Ps).
meta_run(predsort, F, [L, Sorted], C, D, Ps) :-
    B = box([]),
    predsort(ordering(F, C, D, B), L, Sorted),
    arg(1, B, Ps0),
    reverse(Ps0, Ps).

maplist_(Lists, F, C, D, Ps) :-
    (   maplist(==([]), Lists) -> Ps = []
    ;   maplist(=([]), Lists) -> Ps = []
    ;   maplist(head_tail, Lists, Xs, Rests),
        call_goal(F, Xs, C, D, P),
        Ps = [P|Ps1],
        maplist_(Rests, F, C, D, Ps1)
    ).

head_tail([X|Xs], X, Xs).

foldl_(Lists, F, V0, V, C, D, Ps) :-
    (   maplist(=([]), Lists) -> V = V0, Ps = []
    ;   maplist(head_tail, Lists, Xs, Rests),
        append(Xs, [V0, V1], As),
        call_goal(F, As, C, D, P),
        Ps = [P|Ps1],
        foldl_(Rests, F, V1, V, C, D, Ps1)
    ).

filter([], _, _, _, [], [], []).
filter([X|Xs], F, C, D, In, Out, [P|Ps]) :-
    (   call_goal(F, [X], C, D, P0)
    ->  In = [X|In1], Out = Out1, P = P0
    ;   In = In1, Out = [X|Out1], P = c(nocond, call(F, X), [])
    ),
    filter(Xs, F, C, D, In1, Out1, Ps).

ordering(F, C, D, B, O, X, Y) :-
    call_goal(F, [O, X, Y], C, D, P),
    arg(1, B, Ps0),
    nb_setarg(1, B, [P|Ps0]).

call_goal(F, Args, C, D, P) :- node(call(F, Args), _, C, D, P).

%  ------------------------------------------------------------------------------------------
%  Library predicates

%   lib_call(+Goal, +Ctx): output is one inference; the rest are run counted.  A predicate of
%   library(lists) that only unifies and walks lists in Prolog needs no check of its terms'
%   size (a step of a relation unifies as much): the others may walk a term in C as a tree
%   (compare, write, atom_codes, ...) or make atoms.
lib_call(G, C) :-
    (   output(G)
    ->  charge(C, 1),
        lib_call(G)
    ;   unifying(G)
    ->  counted(G, C)
    ;   peirce_meta:within_memory(G),
        counted(G, C),
        atom_check(G)
    ).

unifying(select(_, _, _)).  unifying(selectchk(_, _, _)).  unifying(select(_, _, _, _)).
unifying(permutation(_, _)).  unifying(reverse(_, _)).  unifying(nextto(_, _, _)).
unifying(last(_, _)).  unifying(append(_, _)).

output(format(_)).  output(format(_, _)).  output(write(_)).  output(print(_)).
output(writeq(_)).  output(write_canonical(_)).  output(writeln(_)).  output(nl).
output(tab(_)).

lib_call(format(F)) :- !, lib_call(format(F, [])).
lib_call(format(F, Args)) :- !,
    format_check(F),
    (   is_list(Args) -> As = Args ; As = [Args] ),
    with_output_to(string(S), format(F, As)),
    out(S).
lib_call(write(X)) :- !, out_term(X, [portray(false), numbervars(true)]).
lib_call(print(X)) :- !, out_term(X, [portray(false), numbervars(true), quoted(true)]).
lib_call(writeq(X)) :- !, out_term(X, [portray(false), numbervars(true), quoted(true)]).
lib_call(write_canonical(X)) :- !, out_term(X, [quoted(true), ignore_ops(true)]).
lib_call(writeln(X)) :- !, lib_call(write(X)), out("\n").
lib_call(nl) :- !, out("\n").
lib_call(tab(N)) :- !,
    peirce_meta:builtin_call(K is N),
    (   K > 10000 -> throw(error(resource_error(output), _)) ; true ),
    length(Cs, K), maplist(=(0' ), Cs), string_codes(S, Cs), out(S).

%   Atoms made by a library predicate count against the query's atom budget (see meta.pl).
atom_check(G) :-
    (   arg(_, G, A), atom(A), atom_length(A, L), L > 64
    ->  peirce_meta:atom_budget(L)
    ;   true
    ).

out_term(X, Opts) :-
    with_output_to(string(S), write_term(X, [max_depth(1000)|Opts])),
    out(S).

%   The query's output buffer, at most 1,000,000 characters.
out(S) :-
    nb_getval(peirce_out, S0),
    string_length(S0, L0),
    string_length(S, L),
    (   L0 + L > 1000000
    ->  throw(error(resource_error(output), _))
    ;   string_concat(S0, S, S1),
        nb_setval(peirce_out, S1)
    ).

%!  take_output(-Text): the output of the last query, the buffer emptied.
take_output(S) :-
    (   nb_current(peirce_out, S) -> true ; S = "" ),
    nb_setval(peirce_out, "").
