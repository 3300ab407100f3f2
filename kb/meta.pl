/*  peirce meta-interpreter and loader.

    Clauses arrive as JSON *data* (never as Prolog text) and are built into terms here.  Each
    knowledge base is its own module.  A relation p/N is stored as facts of a mangled predicate
    with two extra arguments, the clause id and the body:

        'p:smart'(X, Id, ['p:quiet'(X)])        % smart(X) :- quiet(X)
        'n:sour'(max, Id, [])                    % ¬sour(max)   (strong negation)
        'p:sib'(X, Y, Id, ['p:par'(P, X), '$b'(X \== Y)])   % a whitelisted built-in

    so the prefix keeps a relation named shell/1 or halt/0 apart from the system predicates, and a
    negated literal is a relation of its own (strong negation; there is no negation as failure).

    The meta-interpreter proves goals by backward chaining over these facts and returns proof
    trees n(Id, Goal, SubProofs).  Search is iterative deepening (shallowest proofs first) with an
    ancestor check on ground goals, and tabled resolution decides what depth-first search cannot
    (failure on cyclic rules, answers behind non-ground recursion); every query
    runs under a depth bound, an inference limit and a time limit.

    Python calls api(+Op, +JSONAtom, -JSONString), which always succeeds with ["ok", Result] or
    ["error", Message]; the hot paths prove/10 (queries to one knowledge base) and ask_batch/7
    (many independent questions, each with its own clauses) reply the same way.

    Term encoding (JSON):  "bob" -> atom bob ("[]" is the empty list), 3 / 2.5 -> numbers,
    [I] (one integer) -> the I-th variable of the clause, ["f", A1, ...] -> compound f(A1, ...).
    A literal is [MangledName, A1, ...] or the string MangledName when it has no arguments;
    a "b:"-prefixed name is a built-in from the whitelist below.
*/
:- module(peirce_meta, [api/3, prove/10, ask_batch/7, call_json/6]).

:- set_prolog_flag(optimise, true).  % arithmetic compiled inline (for this file only)

:- use_module(library(http/json)).
:- use_module(library(time)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(solution_sequences)).

%!  builtin(?Name, ?Arity) is nondet.
%   Pure built-ins that a clause body or a console query may call.
builtin((=), 2).      builtin((\=), 2).     builtin((==), 2).     builtin((\==), 2).
builtin((@<), 2).     builtin((@>), 2).     builtin((@=<), 2).    builtin((@>=), 2).
builtin(is, 2).       builtin((=:=), 2).    builtin((=\=), 2).    builtin((<), 2).
builtin((>), 2).      builtin((=<), 2).     builtin((>=), 2).     builtin(true, 0).
builtin(member, 2).   builtin(memberchk, 2). builtin(length, 2).  builtin(between, 3).
builtin(succ, 2).     builtin(plus, 3).     builtin(append, 3).   builtin(nth0, 3).
builtin(nth1, 3).     builtin(last, 2).     builtin(msort, 2).    builtin(sort, 2).
builtin(sum_list, 2). builtin(max_list, 2). builtin(min_list, 2). builtin(atom, 1).
builtin(number, 1).   builtin(integer, 1).  builtin(atomic, 1).   builtin(is_list, 1).
builtin(var, 1).      builtin(nonvar, 1).   builtin(ground, 1).   builtin(atom_length, 2).
builtin(atom_concat, 3).

%  ------------------------------------------------------------------------------------------
%  Entry point

%!  api(+Op, +In, -Out) is det.
api(Op, In, Out) :-
    catch(api_(Op, In, Reply), E, error_reply(E, Reply)),
    catch(write_json(Reply, Out), E2, ( error_reply(E2, R2), write_json(R2, Out) )).

api_(Op, In, Reply) :-
    json_data(In, Args),
    (   run(Op, Args, Result)
    ->  Reply = [s(ok), Result]
    ;   Reply = [s(error), s("operation failed")]
    ).

%!  prove(+M, +Mode, +Limit, +Inf, +Secs, +MaxDepth, +Alarm, +ExtraJSON, +QueriesJSON, -Out)
%   The hot path of the engine: the scalars arrive as Prolog atoms and numbers, only the extra
%   clauses and the queries as JSON.  Out is the JSON of [["ok", Results]] as for api/3.
prove(M, Mode, Limit, Inf, Secs, MaxD, Alarm, ExtraJSON, QueriesJSON, Out) :-
    catch(prove_(M, Mode, Limit, [Inf, Secs, MaxD, Alarm], ExtraJSON, QueriesJSON, Reply),
          E, error_reply(E, Reply)),
    catch(write_json(Reply, Out), E2, ( error_reply(E2, R2), write_json(R2, Out) )).

prove_(M, Mode, Limit, Lims, ExtraJSON, QueriesJSON, [s(ok), Results]) :-
    (   ExtraJSON == '[]' -> Extra = [] ; json_data(ExtraJSON, Extra) ),
    json_data(QueriesJSON, Queries),
    run(prove, [M, Lims, Extra, Mode, Limit, Queries], Results).

%!  ask_batch(+M, +Inf, +Secs, +MaxD, +Plain, +BatchJSON, -Out)
%   Many independent questions in one call (no built-ins).  The batch is [Clauses, Items]: a
%   clause is [NVars, Head, Body]; an item is [Indexes, Queries], its clauses the Indexes-th of
%   Clauses (from 1; a clause shared by items is read and built once), the id of each its
%   position in Indexes (from 1); a query is [NVars, Literals], answered as in mode first, the
%   limits applying to each query.  Per item, its clauses are asserted into the scratch module M,
%   the queries run and the clauses are erased.  Out is the JSON of ["ok", [Reply, ...]], a
%   Reply is ["ok", [[Status, Flat], ...]] (see flat_result/2) or ["error", Message]: an item
%   that fails or raises spoils no other item.
ask_batch(M, Inf, Secs, MaxD, Plain, BatchJSON, Out) :-
    catch(( json_data(BatchJSON, [Clauses, Items]),
            maplist(batch_clause(M), Clauses, Built),
            Table =.. [t|Built],
            maplist(batch_item(M, Table, [Inf, Secs, MaxD, 0]), Items, Replies),
            Reply = [s(ok), Replies] ),
          E, error_reply(E, Reply)),
    catch(batch_reply(Plain, Reply, Out), E2, ( error_reply(E2, R2), write_json(R2, Out) )).

%   Each item's reply is written apart, its free variables numbered from 0 (as in the reply of
%   prove/10 to one knowledge base).  With Plain = 1 (Python saw that the batch is printable
%   ASCII without a backslash, so every name and constant in the reply is too), an item's reply
%   is made of lists, strings and numbers whose Prolog text is its JSON: the C term writer
%   writes it.
batch_reply(Plain, [s(ok), Replies], Out) :- !,
    maplist(item_json(Plain), Replies, Texts),
    atomic_list_concat(Texts, ',', Body),
    atomics_to_string(['["ok",[', Body, ']]'], Out).
batch_reply(_, Reply, Out) :-
    write_json(Reply, Out).

item_json(1, [s(ok), R], Out) :- !,
    term_variables(R, Vs),
    jshape(R, Vs, J),
    format(string(Out), "[\"ok\",~q]", [J]).
item_json(_, Reply, Out) :-
    write_json(Reply, Out).

jshape(X, _, X) :- integer(X), !.
jshape([], _, []) :- !.
jshape([X|Xs], Vs, [Y|Ys]) :- !, jshape(X, Vs, Y), jshape(Xs, Vs, Ys).
jshape(s(X), _, S) :- !, atom_string(X, S).
jshape(t(X), Vs, J) :- !, jterm(X, Vs, J).
jshape(p(X), Vs, J) :- jproof(X, Vs, J).

jproof(n(Id, G, Ps), Vs, [Id, J, Js]) :- jterm(G, Vs, J), jproofs(Ps, Vs, Js).
jproof(b(G), Vs, [-1, J, []]) :- jterm(G, Vs, J).

jproofs([], _, []).
jproofs([P|Ps], Vs, [J|Js]) :- jproof(P, Vs, J), jproofs(Ps, Vs, Js).

jterm(X, Vs, [I]) :- var(X), !, var_index(Vs, X, 0, I).
jterm([], _, "[]") :- !.
jterm(X, _, S) :- atom(X), !, atom_string(X, S).
jterm(X, _, X) :- integer(X), !.
jterm(X, _, J) :- float(X), !,
    (   ( X =:= inf ; X =:= -inf ; X =\= X ) -> format(string(J), "~w", [X]) ; J = X ).
jterm(X, _, X) :- string(X), !.
jterm(X, Vs, [S|Js]) :- compound(X), !,
    compound_name_arguments(X, N, As),
    atom_string(N, S),
    jterms(As, Vs, Js).
jterm(X, _, S) :- format(string(S), "~q", [X]).

jterms([], _, []).
jterms([X|Xs], Vs, [J|Js]) :- jterm(X, Vs, J), jterms(Xs, Vs, Js).

%   f(Fact, Id): the stored fact of a clause with its id still to bind; bad(E) if it cannot be
%   built (the items that use it get the error).
batch_clause(M, C, F) :-
    catch(( build_fact(M, C, Fact, Id), F = f(Fact, Id) ), E, F = bad(E)).

build_fact(M, [NV, Head, Body], Fact, Id) :-
    length(Vs, NV),
    plain_goal(Head, Vs, H),
    maplist(plain_goal_(Vs), Body, Gs),
    declare_plain(Gs, M),
    stored(H, Id, Gs, Fact).

batch_item(M, Table, Lims, Item, Reply) :-
    (   catch(batch_item_(M, Table, Lims, Item, Results), E, true)
    ->  (   var(E) -> Reply = [s(ok), Results] ; empty(M), error_reply(E, Reply) )
    ;   empty(M),
        Reply = [s(error), s("operation failed")]
    ).

batch_item_(M, Table, Lims, [Indexes, Queries], Results) :-
    batch_assert(Indexes, 1, Table, M, Refs),
    maplist(run_query(M, Lims, first, 1), Queries, Results0),
    maplist(erase, Refs),
    maplist(flat_result, Results0, Results).

batch_assert([], _, _, _, []).
batch_assert([I|Is], Id, Table, M, [Ref|Refs]) :-
    arg(I, Table, F),
    assert_fact(F, Id, M, Ref),
    Id1 is Id + 1,
    batch_assert(Is, Id1, Table, M, Refs).

%   Assert a built clause under Id; the binding is undone (the table's term stays free for the
%   next item), the clause reference kept.
assert_fact(f(Fact, Id0), Id, M, Ref) :-
    Box = box(none),
    (   Id0 = Id, assertz(M:Fact, R), nb_setarg(1, Box, R), fail
    ;   arg(1, Box, Ref)
    ).
assert_fact(bad(E), _, _, _) :- throw(E).

%   [Status, Flat]: the proof of a query as one flat list in preorder, [] when not proved.  A
%   node is Id, N, its goal's N arguments, K, then its K children (the goal's relation is the
%   head of clause Id).
flat_result([S, []], [S, []]) :- !.
flat_result([S, [[_, [p(P)]]]], [S, Flat]) :- flat(P, Flat, []).

flat(n(Id, G, Ps)) -->
    { compound(G) -> compound_name_arguments(G, _, As) ; As = [] },
    { length(As, N), length(Ps, K) },
    [Id, N], targs(As), [K], flats(Ps).

targs([]) --> [].
targs([A|As]) --> [t(A)], targs(As).

flats([]) --> [].
flats([P|Ps]) --> flat(P), flats(Ps).

%   A literal without built-ins: every name is a relation (a "b:" prefix is only a name here).
plain_goal_(Vs, L, G) :- plain_goal(L, Vs, G).

plain_goal([N|As], Vs, G) :- !,
    relation_name(N),
    maplist(dec_(Vs), As, Ts),
    G =.. [N|Ts].
plain_goal(N, _, N) :- atom(N), !, relation_name(N).
plain_goal(L, _, _) :- type_error(literal, L).

declare_plain([], _).
declare_plain([G|Gs], M) :-
    functor(G, N, A0),
    A is A0 + 2,
    (   current_predicate(M:N/A) -> true ; dynamic(M:N/A) ),
    declare_plain(Gs, M).

%   Every clause of the scratch module goes (after an item that raised or failed); the
%   relations stay declared.
empty(M) :-
    catch(forall(( current_predicate(M:N/A), functor(H, N, A),
                   \+ predicate_property(M:H, imported_from(_)) ),
                 retractall(M:H)),
          _, true).

error_reply(error(peirce(Msg), _), [s(error), s(Msg)]) :- !.
error_reply(E, [s(error), s(Msg)]) :- message_text(E, Msg).

run(add, [M, Clauses], N) :-
    add_clauses(M, Clauses, 0, N).
run(prove, [M, Lims, Extra, Mode, Limit, Queries], Results) :-
    setup_call_cleanup(assert_extra(M, Extra, Refs),
                       maplist(run_query(M, Lims, Mode, Limit), Queries, Results),
                       maplist(erase, Refs)).
run(close, [M], 1) :-
    forall(( current_predicate(M:N/A), functor(H, N, A),
             \+ predicate_property(M:H, imported_from(_)) ),
           abolish(M:N/A)).
run(parse_program, [Text], Items) :-
    parse_program(Text, Items).
run(parse_query, [Text], Query) :-
    parse_query(Text, Query).
run(load, [Name, Path], s(Module)) :-
    load_files(Name:Path, [if(not_loaded)]),
    absolute_file_name(Path, Abs),
    (   source_file_property(Abs, module(Module)) -> true ; Module = Name ).
run(export, [Path, Clauses], 1) :-
    export_program(Path, Clauses).

message_text(E, Msg) :-
    catch(( phrase('$messages':translate_message(E), Lines),
            with_output_to(string(S0), print_message_lines(current_output, '', Lines)),
            split_string(S0, "", "\n ", [Msg]) ),
          _, format(string(Msg), "~q", [E])).

%  ------------------------------------------------------------------------------------------
%  Reading the JSON that peirce sends: arrays, strings (-> atoms) and numbers, written by
%  Python's json.dumps (compact, a quote inside a string as \u0022).  That JSON is also Prolog
%  term syntax: outside strings it holds only brackets, commas and numbers, and every JSON string
%  escape (\\ \n \r \t \b \f \uXXXX) means the same in a Prolog quoted item.  So the text is
%  read by the C term reader (about five times faster than a DCG), strings as atoms.  Reading
%  builds a term and runs nothing; a variable in the text (which JSON cannot produce) or any
%  other syntax error is refused.

json_data(Text, T) :-
    term_string(T, Text, [double_quotes(atom), variable_names(Vs), syntax_errors(error)]),
    (   Vs == [] -> true ; syntax_error(peirce_json) ).

%  ------------------------------------------------------------------------------------------
%  Building terms from JSON data

%   A relation used in a body but concluded by no clause must still exist (and fail).
declare(_, []).
declare(M, [G|Gs]) :-
    (   G = '$b'(_)
    ->  true
    ;   functor(G, N, A0),
        A is A0 + 2,
        (   current_predicate(M:N/A) -> true ; dynamic(M:N/A) )
    ),
    declare(M, Gs).

add_clauses(_, [], N, N).
add_clauses(M, [C|Cs], N0, N) :-
    build_clause(M, C, Fact),
    assertz(M:Fact),
    N1 is N0 + 1,
    add_clauses(M, Cs, N1, N).

assert_extra(M, Clauses, Refs) :-
    maplist(assert_one(M), Clauses, Refs).
assert_one(M, C, Ref) :- build_clause(M, C, Fact), assertz(M:Fact, Ref).

%   [Id, NVars, Head, Body] -> stored fact
build_clause(M, [Id, NV, Head, Body], Fact) :-
    length(Vs, NV),
    dec_goal(Head, Vs, H),
    (   H = '$b'(_) -> domain_error(relation, Head) ; true ),
    maplist(dec_goal_(Vs), Body, Gs),
    declare(M, Gs),
    stored(H, Id, Gs, Fact).

dec_goal_(Vs, L, G) :- dec_goal(L, Vs, G).

dec_goal(L, Vs, G) :-
    (   L = [N|As] -> true ; atom(L) -> N = L, As = [] ; type_error(literal, L) ),
    atom(N),
    maplist(dec_(Vs), As, Ts),
    (   sub_atom(N, 0, 2, _, 'b:')
    ->  sub_atom(N, 2, _, 0, B),
        length(Ts, Ar),
        (   builtin(B, Ar) -> true ; permission_error(call, builtin, B/Ar) ),
        G0 =.. [B|Ts],
        G = '$b'(G0)
    ;   relation_name(N),
        G =.. [N|Ts]
    ).

%   A relation's name carries its sign, p: or n: (anything else is refused: no goal built from
%   data can name a predicate that Prolog has of its own).
relation_name(N) :- atom(N), sub_atom(N, 0, 2, _, P), ( P == 'p:' ; P == 'n:' ), !.
relation_name(N) :- domain_error(relation_name, N).

dec_(Vs, X, T) :- dec(X, Vs, T).

dec(X, _, T) :- atom(X), !, ( X == '[]' -> T = [] ; T = X ).
dec(X, _, X) :- number(X), !.
dec([I], Vs, V) :- integer(I), !, nth0(I, Vs, V).
dec([N|As], Vs, T) :- atom(N), !,
    maplist(dec_(Vs), As, Ts),
    compound_name_arguments(T, N, Ts).
dec(X, _, _) :- type_error(term, X).

stored(G, Id, Body, Fact) :-
    functor(G, N, A),
    stored(A, G, N, Id, Body, Fact).

%   (unrolled for the common arities: the meta-interpreter calls this at every step)
stored(0, _, N, Id, Body, Fact) :- !,
    Fact =.. [N, Id, Body].
stored(1, G, N, Id, Body, Fact) :- !,
    arg(1, G, A),
    Fact =.. [N, A, Id, Body].
stored(2, G, N, Id, Body, Fact) :- !,
    arg(1, G, A), arg(2, G, B),
    Fact =.. [N, A, B, Id, Body].
stored(_, G, N, Id, Body, Fact) :-
    G =.. [N|As],
    append(As, [Id, Body], As2),
    Fact =.. [N|As2].

%  ------------------------------------------------------------------------------------------
%  The meta-interpreter

%   Lims = [Inferences, Seconds, MaxDepth, Alarm]; a query is [NVars, Literals].
%   Mode: first (one proof) or all (up to Limit distinct answers).
%   Result = [Status, Solutions], Status in ok / depth / inferences / time,
%   a solution is [Goals, Proofs] with the goals instantiated (Goals is [] in mode first: the
%   root of each proof shows the instance).
%   The time limit is a deadline checked at every step of the meta-interpreter; with Alarm = 1
%   (queries that may call built-ins) call_with_time_limit/2 guards the built-ins as well.
run_query(M, [Inf, Secs, MaxD, Alarm], Mode, Limit, [NV, Lits], [Status, Sols]) :-
    length(Vs, NV),
    maplist(dec_goal_(Vs), Lits, Goals),
    get_time(Now),
    Deadline is Now + Secs,
    St = st(false),
    Acc = acc([], ok),
    Ctx = ctx(M, MaxD, St, Deadline),
    nb_setval(peirce_too_deep, false),
    bounded(Alarm, Secs, Inf, collect(Mode, Limit, Inf, Goals, Ctx, Acc), R),
    (   nb_getval(peirce_too_deep, true) -> nb_setarg(1, St, true) ; true ),
    arg(1, Acc, Found0),
    reverse(Found0, Found),
    (   Mode == all -> maplist(solution, Found, Sols) ; maplist(proofs_only, Found, Sols) ),
    (   R == inference_limit_exceeded -> Status = s(inferences)
    ;   arg(2, Acc, inferences) -> Status = s(inferences)
    ;   R == time -> Status = s(time)
    ;   arg(1, St, true) -> Status = s(depth)
    ;   Status = s(ok)
    ).

collect(first, _, _, Goals, Ctx, Acc) :- !,
    (   shallowest(Goals, Ctx, check, Proofs) -> nb_setarg(1, Acc, [Goals-Proofs]) ; true ).
collect(all, Limit, Inf, Goals, Ctx, Acc) :-
    %   Depth-first search first, with a quarter of the inferences: when it completes, the
    %   answers come in Prolog's order.  When it was cut (by the depth bound, on cyclic rules
    %   with unbound arguments, or by its budget), tabled resolution (complete and terminating
    %   for Datalog) finds the remaining answers, each with a shallowest proof.
    Ctx = ctx(M, MaxD, _, Deadline),
    Quarter is max(1, Inf // 4),
    Cut = st(false),
    call_with_inference_limit(depth_first_all(Limit, Goals, ctx(M, MaxD, Cut, Deadline), Acc),
                              Quarter, R0),
    arg(1, Acc, Found),
    length(Found, N),
    (   ( N >= Limit ; R0 \== inference_limit_exceeded, arg(1, Cut, false) )
    ->  true
    ;   Half is max(1, Inf // 2),
        reset_tables,
        tq(Ctx, Q),
        call_with_inference_limit(
            findall(Goals, limit(Limit, distinct(Goals, tabled_all(Goals, Q))), As),
            Half, R),
        reset_tables,
        (   R == inference_limit_exceeded
        ->  nb_setarg(2, Acc, inferences)
        ;   exclude(found(Found), As, New),
            Room is Limit - N,
            length(New, NNew),
            Take is min(Room, NNew),
            length(Extra, Take),
            append(Extra, _, New),
            with_proofs(Extra, Ctx, Acc)
        )
    ).

found(Found, A) :- member(F-_, Found), F =@= A, !.

with_proofs([], _, _).
with_proofs([A|As], Ctx, Acc) :-
    (   shallowest(A, Ctx, trust, Proofs)
    ->  arg(1, Acc, L0), nb_setarg(1, Acc, [A-Proofs|L0])
    ;   true
    ),
    with_proofs(As, Ctx, Acc).

depth_first_all(Limit, Goals, Ctx, Acc) :-
    (   limit(Limit, distinct(Goals, prove_all(Goals, 0, [], Ctx, Proofs))),
        arg(1, Acc, L0),
        nb_setarg(1, Acc, [Goals-Proofs|L0]),
        fail
    ;   true
    ).

bounded(0, _, Inf, Goal, R) :- !,
    catch(call_with_inference_limit(Goal, Inf, R), peirce_time_limit, R = time).
bounded(_, Secs, Inf, Goal, R) :-
    catch(call_with_time_limit(Secs, call_with_inference_limit(Goal, Inf, R)), E, timeout(E, R)).

timeout(time_limit_exceeded, time) :- !.
timeout(peirce_time_limit, time) :- !.
timeout(E, _) :- throw(E).

%   shallowest(+Goals, +Ctx, +Check, -Proofs): iterative deepening, so the first proof found is a
%   shallowest one (a fact the knowledge base states is preferred to a derivation of it).  A
%   bound that cut no branch means the search was complete.  Bounds grow by one up to 16, then
%   double, up to the depth limit.  With Check = check, a bounded search that was cut after
%   spending more than 2,000 inferences first asks tabled resolution (once) whether the goals
%   hold at all: failure is then found in polynomial time where depth-first search would
%   enumerate exponentially many paths.  Cheap searches never pay for setting up the tables.
shallowest(Goals, Ctx, Check, Proofs) :-
    deepen(1, Ctx, Goals, Check, Proofs).

deepen(D, Ctx, Goals, Check, Proofs) :-
    Ctx = ctx(M, MaxD, St, Deadline),
    Bound is min(D, MaxD),
    Cut = st(false),
    statistics(inferences, I0),
    (   prove_all(Goals, 0, [], ctx(M, Bound, Cut, Deadline), Proofs0)
    ->  Proofs = Proofs0
    ;   arg(1, Cut, false)
    ->  fail
    ;   Bound >= MaxD
    ->  nb_setarg(1, St, true),
        fail
    ;   Check == check,
        statistics(inferences, I1),
        I1 - I0 > 2000
    ->  (   tq(Ctx, Q), \+ tabled_holds(Goals, Q)
        ->  fail
        ;   next_bound(Bound, D1),
            deepen(D1, Ctx, Goals, trust, Proofs)
        )
    ;   next_bound(Bound, D1),
        deepen(D1, Ctx, Goals, Check, Proofs)
    ).

next_bound(Bound, D1) :- ( Bound < 16 -> D1 is Bound + 1 ; D1 is Bound * 2 ).

tabled_holds(Goals, Q) :-
    reset_tables,
    (   \+ \+ tabled_all(Goals, Q) -> R = true ; R = false ),
    reset_tables,
    R == true.

reset_tables :- abolish_table_subgoals(peirce_meta:tp(_, _)).

%   The context of a tabled evaluation: goals and answers larger than 8 cells per level of the
%   depth limit count as too deep (growing terms would otherwise give infinitely many subgoals
%   or answers).
%   (Tabled calls work on copies, so "too deep" is noted in a global variable.)
%   The deadline is read from a global variable so that tables are keyed the same way in
%   every query (a key that changes per query would grow the table trie without end).
tq(ctx(M, MaxD, _, Deadline), q(M, MaxSize)) :-
    MaxSize is 8 * MaxD,
    nb_setval(peirce_deadline, Deadline).

tabled_all([], _).
tabled_all([G|Gs], Q) :- tabled(G, Q), tabled_all(Gs, Q).

tabled('$b'(G), _) :- !, call(G).
tabled(G, Q) :- tp(Q, G).

:- table tp/2.

tp(q(M, MaxSize), G) :-
    get_time(Now),
    nb_getval(peirce_deadline, Deadline),
    (   Now > Deadline -> throw(peirce_time_limit) ; true ),
    term_size(G, Size),
    (   Size > MaxSize -> nb_setval(peirce_too_deep, true), fail ; true ),
    call(M:G, _, Body),
    tabled_all(Body, q(M, MaxSize)),
    term_size(G, Answer),
    (   Answer > MaxSize -> nb_setval(peirce_too_deep, true), fail ; true ).

proofs_only(_-Proofs, [[], Ps]) :-
    maplist(tag(p), Proofs, Ps).

solution(Goals-Proofs, [Gs, Ps]) :-
    maplist(tag(t), Goals, Gs),
    maplist(tag(p), Proofs, Ps).

tag(F, X, T) :- T =.. [F, X].

prove_all([], _, _, _, []).
prove_all([G|Gs], D, Anc, Ctx, [P|Ps]) :-
    prove(G, D, Anc, Ctx, P),
    prove_all(Gs, D, Anc, Ctx, Ps).

prove('$b'(G), _, _, _, b(G)) :- !,
    call(G).
prove(G, D, Anc, Ctx, n(Id, G, Ps)) :-
    Ctx = ctx(M, MaxD, St, Deadline),
    (   D >= MaxD
    ->  nb_setarg(1, St, true),
        fail
    ;   true
    ),
    get_time(Now),
    (   Now > Deadline -> throw(peirce_time_limit) ; true ),
    \+ looping(G, Anc),
    call(M:G, Id, Body),           % the stored fact G(Args..., Id, Body); see stored/4
    D1 is D + 1,
    prove_all(Body, D1, [G|Anc], Ctx, Ps).

%   A ground goal that is its own ancestor needs no proof of its own: a shortest proof never
%   repeats a ground atom on a branch.  A goal with variables is never pruned (a variant of an
%   ancestor may still have the answers the ancestor needs); the depth bound stops it.
looping(G, Anc) :- ground(G), eq_member(G, Anc).

eq_member(G, [A|As]) :- ( G == A -> true ; eq_member(G, As) ).

%  ------------------------------------------------------------------------------------------
%  Writing JSON (compact and fast).  A reply is built from lists (JSON arrays), integers,
%  s(Text) (a JSON string), t(Term) (a term in the input encoding; a free variable is [I],
%  numbered over the whole reply) and p(Proof) ([Id, Goal, Children]; Id -1 for a built-in).

write_json(T, Out) :-
    term_variables(T, Vs),
    phrase(wv(T, Vs), Codes),
    string_codes(Out, Codes).

wv(X, _) --> { integer(X) }, !, num(X).
wv([], _) --> !, "[]".
wv([X|Xs], Vs) --> !, "[", wv(X, Vs), wvl(Xs, Vs), "]".
wv(s(X), _) --> !, str(X).
wv(t(X), Vs) --> !, wt(X, Vs).
wv(p(X), Vs) --> !, wp(X, Vs).
wv(raw(Text), _) --> !, { atom_codes(Text, Cs) }, Cs.
wv(X, _) --> { type_error(reply, X) }.

wvl([], _) --> [].
wvl([X|Xs], Vs) --> ",", wv(X, Vs), wvl(Xs, Vs).

wp(n(Id, G, Ps), Vs) --> "[", num(Id), ",", wt(G, Vs), ",[", wpl(Ps, Vs), "]]".
wp(b(G), Vs) --> "[-1,", wt(G, Vs), ",[]]".

wpl([], _) --> [].
wpl([P|Ps], Vs) --> wp(P, Vs), ( { Ps == [] } -> [] ; ",", wpl(Ps, Vs) ).

wt(X, Vs) --> { var(X) }, !, { var_index(Vs, X, 0, I) }, "[", num(I), "]".
wt([], _) --> !, "\"[]\"".
wt(X, _) --> { atom(X) }, !, str(X).
wt(X, _) --> { integer(X) }, !, num(X).
wt(X, _) --> { float(X) }, !,
    (   { X =:= inf ; X =:= -inf ; X =\= X }
    ->  { format(string(S), "~w", [X]) }, str(S)
    ;   num(X)
    ).
wt(X, _) --> { string(X) }, !, str(X).
wt(X, Vs) --> { compound(X) }, !,
    { compound_name_arguments(X, N, As) },
    "[", str(N), wtl(As, Vs), "]".
wt(X, _) --> { format(string(S), "~q", [X]) }, str(S).

wtl([], _) --> [].
wtl([X|Xs], Vs) --> ",", wt(X, Vs), wtl(Xs, Vs).

num(N, Codes, Tail) :- format(codes(Codes, Tail), "~w", [N]).

%   a JSON string; only ", \\ and control characters are escaped (the text stays UTF-8)
str(Text, S0, S) :-
    json_special(Special, Nul),
    split_string(Text, Special, "", [_]),
    \+ sub_string(Text, _, _, _, Nul),
    !,
    format(codes(S0, S), "\"~w\"", [Text]).
str(Text) --> { atom_codes(Text, Cs) }, "\"", esc(Cs), "\"".

%   json_special(-Chars, -Nul): the characters a JSON string must escape (as separators for
%   split_string/4, which cannot take NUL: that one is looked for apart).
:- dynamic json_special/2.
:- findall(C, ( between(1, 31, C) ; C = 0'" ; C = 0'\\ ), Cs),
   string_codes(S, Cs),
   string_codes(Nul, [0]),
   assertz(json_special(S, Nul)).

esc([]) --> [].
esc([C|Cs]) --> ( { C >= 0x20, C =\= 0'", C =\= 0'\\ } -> [C] ; esc1(C) ), esc(Cs).

esc1(0'") --> !, "\\\"".
esc1(0'\\) --> !, "\\\\".
esc1(0'\n) --> !, "\\n".
esc1(0'\t) --> !, "\\t".
esc1(0'\r) --> !, "\\r".
esc1(C) --> { format(codes(Hex), "\\u~|~`0t~16r~4+", [C]) }, Hex.

var_index([V|Vs], X, I0, I) :- ( V == X -> I = I0 ; I1 is I0 + 1, var_index(Vs, X, I1, I) ).

%  ------------------------------------------------------------------------------------------
%  Reading Prolog text as data (the console's .pl files and queries).  read_term/3 only parses;
%  nothing read is ever called.  Directives and queries in a file are reported, not run.
%  Items: ["clause", Line, Col, Start, End, Names, Head, Body]
%         ["skipped", Line, Col, Start, End, Kind, Text]
%         ["warning", Line, Col, Start, End, Message, Relation]
%         ["error", Line, Col, Start, End, Message]
%  Names pairs each variable with its name: [[Var, "X"], ...].

parse_program(Text, Items) :-
    setup_call_cleanup(open_string(Text, S), read_items(S, Items), close(S)).

read_items(S, Items) :-
    catch(( read_term(S, T, [variable_names(Vs), term_position(P)]),
            Item0 = term(T, Vs, P) ),
          error(syntax_error(What), Ctx),
          Item0 = syntax(What, Ctx)),
    character_count(S, End),
    (   Item0 = term(end_of_file, _, _)
    ->  Items = []
    ;   item(Item0, End, Items, Rest),
        read_items(S, Rest)
    ).

item(syntax(What, Ctx), End, [[s(error), L, C, B, End, s(Msg)]|T], T) :- !,
    (   Ctx = stream(_, L, LP, B) -> C is LP + 1 ; L = 1, C = 1, B = 0 ),
    format(string(Msg), "syntax error: ~w", [What]).
item(term(T, Vs, P), End, Items, Tail) :-
    stream_position_data(char_count, P, B),
    stream_position_data(line_count, P, L),
    stream_position_data(line_position, P, LP),
    C is LP + 1,
    catch(clause_item(T, Vs, Item, Warnings), error(E, _), bad_item(E, Item, Warnings)),
    Item =.. [K|Args],
    append([s(K), L, C, B, End], Args, Fields),
    findall([s(warning), L, C, B, End, s(W), s(R)], member(W-R, Warnings), Ws),
    append([Fields|Ws], Tail, Items).

bad_item(peirce(Msg), error(s(Msg)), []) :- !.
bad_item(E, error(s(Msg)), []) :- message_text(error(E, _), Msg).

clause_item((:- D), Vs, skipped(s(directive), s(Text)), []) :- !, show(D, Vs, Text).
clause_item((?- Q), Vs, skipped(s(query), s(Text)), []) :- !, show(Q, Vs, Text).
clause_item((_ --> _), _, _, _) :- !, refuse("grammar rules (-->) are not supported").
clause_item((H :- B), Vs, clause(Names, t(Head), Body), Ws) :- !,
    head_literal(H, Head),
    conj_literals(B, Gs, Ws),
    maplist(tag(t), Gs, Body),
    names(Vs, Names).
clause_item(H, Vs, clause(Names, t(Head), []), []) :-
    head_literal(H, Head),
    names(Vs, Names).

show(T, Vs, Text) :-
    format(string(Text), "~W", [T, [quoted(true), variable_names(Vs), portray(false)]]).

names(Vs, Names) :- maplist(name_pair, Vs, Names).
name_pair(N=V, [t(V), s(N)]).

refuse(Msg) :- throw(error(peirce(Msg), _)).

head_literal(H, _) :- var(H), !, refuse("a clause head cannot be a variable").
head_literal(-(G), L) :- !, relation(G, 'n:', L).
head_literal(G, _) :- control(G, Why), !, refuse(Why).
head_literal(G, _) :- callable(G), functor(G, N, A), builtin(N, A), !,
    format(string(M), "cannot redefine the built-in ~q/~d", [N, A]), refuse(M).
head_literal(G, L) :- relation(G, 'p:', L).

relation(G, _, _) :- \+ callable(G), !,
    format(string(M), "not a literal: ~q", [G]), refuse(M).
relation(G, Prefix, L) :-
    G =.. [N|As],
    atom_concat(Prefix, N, MN),
    L =.. [MN|As].

conj_literals(B, Gs, Ws) :- phrase(conj(B, Ws0), Gs), sort(Ws0, Ws).

conj(B, []) --> { var(B) }, !, { refuse("a goal cannot be a variable (call/1 is not supported)") }.
conj((A, B), Ws) --> !, conj(A, W1), conj(B, W2), { append(W1, W2, Ws) }.
conj(G, Ws) --> { body_literal(G, L, Ws) }, [L].

body_literal(-(G), L, []) :- !, relation(G, 'n:', L).
body_literal(G, _, _) :- control(G, Why), !, refuse(Why).
body_literal(G, L, []) :- callable(G), functor(G, N, A), builtin(N, A), !,
    G =.. [N|As], atom_concat('b:', N, BN), L =.. [BN|As].
body_literal(G, L, Ws) :-
    relation(G, 'p:', L),
    functor(G, N, A),
    (   system_predicate(G)
    ->  format(string(W), "~q/~d is a Prolog built-in that is not allowed here; it is read as an ordinary relation", [N, A]),
        format(string(R), "~w/~d", [N, A]),
        Ws = [W-R]
    ;   Ws = []
    ).

system_predicate(G) :-
    catch(predicate_property(system:G, defined), _, fail),
    \+ catch(predicate_property(system:G, dynamic), _, fail).

control(G, _) :- \+ callable(G), !, fail.
control((_ ; _), "disjunction (;) is not supported: write one clause per alternative").
control((_ -> _), "if-then-else (->) is not supported").
control((_ *-> _), "soft-cut (*->) is not supported").
control(\+ _, "negation as failure (\\+) is not supported: use strong negation, -p(X)").
control(!, "the cut (!) is not supported").
control((_ :- _), "a clause is not a goal").
control((:- _), "a directive is not a goal").
control((_ --> _), "a grammar rule is not a goal").
control(G, M) :-
    functor(G, N, A),
    memberchk(N/A, [call/_, findall/3, forall/2, not/1, catch/3, (:)/2]),
    format(string(M), "~q/~d is not supported", [N, A]).

%   parse_query(+Text, -[Names, Goals]): a conjunction of body literals; the full stop is optional
parse_query(Text, [Names, Goals]) :-
    (   sub_string(Text, _, _, 0, ".") -> T1 = Text ; string_concat(Text, " .", T1) ),
    catch(term_string(Q, T1, [variable_names(Vs), syntax_errors(error)]),
          error(syntax_error(What), _),
          ( format(string(M), "syntax error: ~w", [What]), refuse(M) )),
    (   Q = (?- Q1) -> true ; Q1 = Q ),
    conj_literals(Q1, Gs, _),
    maplist(tag(t), Gs, Goals),
    names(Vs, Names).

%   export(+Path, +[[Label, Clause], ...]): a .pl file for SWI-Prolog's own top level
export_program(Path, Items) :-
    setup_call_cleanup(open(Path, write, S, [encoding(utf8)]),
                       write_program(S, Items),
                       close(S)).

write_program(S, Items) :-
    format(S, ":- encoding(utf8).~n", []),
    findall(PI, ( member([_, [_, _, H, B]], Items), member(L, [H|B]), lit_pi(L, PI) ), PIs0),
    sort(PIs0, PIs),
    include(clashes, PIs, Clash),
    forall(member(N/A, Clash),
           format(S, "% left out: ~q/~d is a built-in of SWI-Prolog, its clauses could run it~n",
                  [N, A])),
    subtract(PIs, Clash, Own),
    forall(member(PI, Own), portray_clause(S, (:- dynamic(PI)))),
    forall(( member([Label, C], Items), \+ uses_any(C, Clash) ), write_item(S, Label, C)).

clashes(N/A) :- functor(H, N, A), predicate_property(system:H, defined).

uses_any([_, _, H, B], Clash) :- member(L, [H|B]), lit_pi(L, PI), memberchk(PI, Clash), !.

lit_pi(L, PI) :-
    (   L = [MN|As] -> length(As, A) ; MN = L, A = 0 ),
    sub_atom(MN, 0, 2, _, Prefix),
    sub_atom(MN, 2, _, 0, N),
    (   Prefix == 'n:' -> PI = (-)/1
    ;   Prefix == 'p:' -> PI = N/A
    ).

write_item(S, Label, [_, NV, H, B]) :-
    length(Vs, NV),
    dec_goal(H, Vs, H1), plain(H1, H2),
    maplist(dec_goal_(Vs), B, B1), maplist(plain, B1, B2),
    (   Label == '' -> true
    ;   split_string(Label, "\n", "", Parts), atomic_list_concat(Parts, ' ', L1),
        format(S, "% ~w~n", [L1])
    ),
    (   B2 == [] -> portray_clause(S, H2)
    ;   list_conj(B2, Body), portray_clause(S, (H2 :- Body))
    ).

plain('$b'(G), G) :- !.
plain(G, P) :-
    G =.. [MN|As],
    sub_atom(MN, 0, 2, _, Prefix),
    sub_atom(MN, 2, _, 0, N),
    P0 =.. [N|As],
    (   Prefix == 'n:' -> P = -(P0) ; P = P0 ).

list_conj([G], G) :- !.
list_conj([G|Gs], (G, C)) :- list_conj(Gs, C).

%  ------------------------------------------------------------------------------------------
%  Trusted programs: call_json(+Module, +Pred, +InJSON, +Inferences, +Seconds, -OutJSON)
%  Out is ["ok", Result] (Result written as JSON in place), ["limit", Which], ["fail", _] or
%  ["error", Message].

call_json(M, P, In, Inf, Secs, Out) :-
    catch(call_json_(M, P, In, Inf, Secs, Reply), E, error_reply(E, Reply)),
    write_json(Reply, Out).

call_json_(M, P, In, Inf, Secs, Reply) :-
    atom_json_dict(In, Dict, []),
    G =.. [P, Dict, Res],
    (   catch(call_with_time_limit(Secs, call_with_inference_limit(once(M:G), Inf, R)),
              time_limit_exceeded, R = time)
    ->  true
    ;   R = failed
    ),
    (   R == failed
    ->  Reply = [s(fail), s(failed)]
    ;   R == inference_limit_exceeded
    ->  Reply = [s(limit), s(inferences)]
    ;   R == time
    ->  Reply = [s(limit), s(time)]
    ;   atom_json_dict(J, Res, [width(0)]),
        Reply = [s(ok), raw(J)]
    ).
