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
    (failure on cyclic rules, answers behind non-ground recursion).

    Limits.  Every query runs under a depth bound, an inference limit and a time limit (an alarm,
    so tabled resolution and built-ins are interrupted as well), with unification that does the
    occurs check (no cyclic term is ever built), and every call from Python under a memory limit:
    the stack limit and the table space of the calling thread are set for the call and restored
    after it.  Writing a query's answer is bounded too: it runs under the same time limit (a
    query whose answer cannot be written in time has status time), refuses integers of more than
    4,000 digits (status integer) and happens under the memory limit (status memory).

    Python calls api(+Op, +MiB, +JSONAtom, -JSONString), which always succeeds with ["ok", Result]
    or ["error", Message]; the hot paths prove/10 (queries to one knowledge base) and ask_batch/8
    (many independent questions, each with its own clauses) reply the same way.

    Term encoding (JSON), Python to Prolog:  "bob" -> atom bob ("[]" is the empty list), 3 / 2.5
    -> numbers, [I] (one integer) -> the I-th variable of the clause, ["f", A1, ...] -> compound
    f(A1, ...).  A literal is [MangledName, A1, ...] or the string MangledName when it has no
    arguments; a "b:"-prefixed name is a built-in from the whitelist below.

    Replies, Prolog to Python, are flat so that no depth of term or proof nests the JSON: a term
    is an array of tokens in preorder, a string for an atom, a number, [I] for the I-th free
    variable, [Name, N] for a compound whose N arguments follow ("f(X, g(a))" is
    [["f",2],[0],["g",1],"a"]); a proof is an array of its nodes in preorder, each its clause id
    (-1 for a built-in step), its goal (a term) and its number of children.

    Kept whole (past 400 lines): it is loaded as one file (compiled once to a .qlf checked by
    its SHA-256) into one module, peirce_meta; the loader, the meta-interpreter, the limits and
    the JSON boundary share its scheme of mangled names and its global variables. The control
    constructs are in kb/control.pl, loaded beside it.
*/
:- module(peirce_meta, [api/4, prove/10, ask_batch/8, call_json/7, swipl_console/0,
                        load_text/8]).

:- set_prolog_flag(optimise, true).  % arithmetic compiled inline (for this file only)

:- autoload(library(http/json), [atom_json_dict/3]).
:- use_module(library(time)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(solution_sequences)).
:- autoload(library(sandbox), [safe_goal/1]).
%   (kb/control.pl, Prolog's control constructs and safe libraries with proofs, is loaded
%   beside this file: its predicates are called as peirce_control:...)

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

%!  reserved(+Name, +Arity, -Why) is semidet.
%   A relation that a program written for SWI-Prolog must never define: a control construct or
%   a built-in, a hook that SWI-Prolog itself calls (a clause of expand_query/4 that only unifies
%   can hand the top level a goal to run), a module-qualified or directive-shaped head, or a name
%   SWI-Prolog keeps for itself.  export_program/2 leaves such relations out, the loader of the
%   top level (swipl_console/0) refuses them, and a program read by parse_program/2 that defines
%   one is warned about.  The hooks are those of the SWI-Prolog manual; any predicate of module
%   user declared multifile (how SWI-Prolog and its libraries declare hooks) counts as one too.
reserved(N, A, Why) :-
    (   sub_atom(N, 0, 1, _, $)
    ->  Why = "a name SWI-Prolog keeps for its own predicates"
    ;   shaped(N, A)
    ->  Why = "a module qualifier, a directive or a rule, not a relation"
    ;   builtin(N, A)
    ->  Why = "a built-in"
    ;   functor(H, N, A),
        catch(predicate_property(system:H, defined), _, fail)
    ->  Why = "a built-in of SWI-Prolog"
    ;   hook(N, A)
    ->  Why = "a hook SWI-Prolog calls"
    ;   functor(H, N, A),
        catch(predicate_property(user:H, multifile), _, fail)
    ->  Why = "a hook SWI-Prolog calls"
    ).

shaped((:), 2).  shaped((:-), 1).  shaped((:-), 2).  shaped((?-), 1).  shaped((-->), 2).
shaped((@), 2).

%   Hooks that SWI-Prolog (9.x) or its libraries call in module user, or in the module a goal or
%   clause belongs to (term and goal expansion, attribute hooks).
hook(expand_query, 4).          hook(expand_answer, 2).       hook(term_expansion, 2).
hook(term_expansion, 4).        hook(goal_expansion, 2).      hook(goal_expansion, 4).
hook(portray, 1).               hook(message_hook, 3).        hook(thread_message_hook, 3).
hook(message_property, 2).      hook(portray_message, 2).     hook(exception, 3).
hook(prolog_load_file, 2).      hook(prolog_file_type, 2).    hook(file_search_path, 2).
hook(library_directory, 1).     hook(resource, 2).            hook(resource, 3).
hook(prolog_list_goal, 1).      hook(prolog_predicate_name, 2).
hook(prolog_clause_name, 2).    hook(prolog_exception_hook, 4).
hook(prolog_exception_hook, 5). hook(prolog_trace_interception, 4).
hook(prolog_event_hook, 1).     hook(prolog_uncaught_exception_hook, 2).
hook(attr_unify_hook, 2).       hook(attribute_goals, 3).     hook(attr_portray_hook, 2).
hook(portray_attvar, 1).        hook(url_path, 2).            hook(term_expansion, 6).
hook(prolog_stack_frame_property, 2).                        hook(message, 3).
hook(called_by, 2).             hook(called_by, 4).           hook(meta_goal, 2).
hook(safe_primitive, 1).        hook(safe_meta, 2).           hook(safe_meta_predicate, 1).
hook(safe_global_variable, 1).  hook(safe_directive, 1).      hook(safe_prolog_flag, 2).
hook(sandbox_allowed_goal, 1).  hook(sandbox_allowed_clause, 1).
hook(sandbox_allowed_directive, 1).                          hook(sandbox_allowed_expansion, 1).
hook(exception_hook, 4).        hook(halt_hook, 1).           hook(at_halt, 1).
hook(initialization, 1).        hook(initialization, 2).      hook(heartbeat, 0).
hook(break_hook, 7).            hook(assertion_failed, 2).    hook(tripwire, 2).
hook(open_source_hook, 3).      hook(comment_hook, 3).        hook(xref_hook, 1).

%  ------------------------------------------------------------------------------------------
%  Entry points and limits

%!  api(+Op, +MiB, +In, -Out) is det.
%   Op on the JSON In, under a memory limit of MiB mebibytes.
api(Op, MiB, In, Out) :-
    catch(with_memory(MiB, false, ( api_(Op, In, Reply), write_json(Reply, Out) )), E, true),
    (   var(E) -> true ; error_reply(E, R), write_json(R, Out) ).

api_(Op, In, Reply) :-
    json_data(In, Args),
    (   run(Op, Args, Result)
    ->  Reply = [s(ok), Result]
    ;   Reply = [s(error), s("operation failed")]
    ).

%!  with_memory(+MiB, +OccursCheck, :Goal)
%   Goal with the stack limit and the table space of this thread set to MiB mebibytes (and,
%   when OccursCheck is true, unification with the occurs check), restored after it whatever
%   happens.
with_memory(MiB, Occurs, Goal) :-
    Bytes is MiB * 1048576,
    current_prolog_flag(stack_limit, S0),
    current_prolog_flag(table_space, T0),
    current_prolog_flag(occurs_check, O0),
    setup_call_cleanup(set_limits(Bytes, Bytes, Occurs),
                       once(Goal),
                       set_limits(S0, T0, O0)).

set_limits(Stack, Tables, Occurs) :-
    set_prolog_flag(stack_limit, Stack),
    catch(set_prolog_flag(table_space, Tables), _, true),   % tables in use: the old space stays
    set_prolog_flag(occurs_check, Occurs).

%!  prove(+M, +Mode, +Limit, +Inf, +Secs, +MaxDepth, +MiB, +ExtraJSON, +QueriesJSON, -Out)
%   The hot path of the engine: the scalars arrive as Prolog atoms and numbers, only the extra
%   clauses and the queries as JSON.  Out is the JSON of ["ok", [Result, ...]] (see run_query/6),
%   each query's result written under the query's limits.
prove(M, Mode, Limit, Inf, Secs, MaxD, MiB, ExtraJSON, QueriesJSON, Out) :-
    catch(with_memory(MiB, true,
                      prove_(M, Mode, Limit, [Inf, Secs, MaxD], ExtraJSON, QueriesJSON, Texts)),
          E, true),
    (   var(E) -> ok_list(Texts, Out) ; error_reply(E, R), write_json(R, Out) ).

prove_(M, Mode, Limit, Lims, ExtraJSON, QueriesJSON, Texts) :-
    (   ExtraJSON == '[]' -> Extra = [] ; json_data(ExtraJSON, Extra) ),
    json_data(QueriesJSON, Queries),
    setup_call_cleanup(assert_extra(M, Extra, Refs),
                       foldl(query_text(M, Lims, Mode, Limit), Queries, Texts, 0, _),
                       maplist(erase, Refs)).

query_text(M, Lims, Mode, Limit, Query, Text, V0, V) :-
    run_query(M, Lims, Mode, Limit, Query, Result),
    Lims = [_, Secs|_],
    result_text(json, Secs, Result, Text, V0, V).

%   ["ok", [Text, ...]] from the JSON texts of the parts.
ok_list(Texts, Out) :-
    atomic_list_concat(Texts, ',', Body),
    atomics_to_string(['["ok",[', Body, ']]'], Out).

%!  result_text(+How, +Secs, +Result, -Text, +V0, -V)
%   The JSON text of a query's Result = [Status, Solutions], its free variables numbered from V0
%   (V is V0 plus their number: the variables of a reply are numbered over all its queries,
%   which share none), written within Secs seconds (and the
%   memory limit of the call); when it cannot be, ["time", []], ["memory", []] or ["integer", []]
%   (an integer of more than 4,000 digits, which Python would not read).  How is json
%   (write_json/2) or plain(Plain) (a flat proof, see ask_batch/8).
result_text(How, Secs, Result, Text, V0, V) :-
    term_variables(Result, Vs),
    length(Vs, N),
    V is V0 + N,
    catch(call_with_time_limit(Secs, result_text_(How, Result, V0, Text)), E, true),
    (   var(E)
    ->  true
    ;   limit_status(E, S)
    ->  format(string(Text), "[\"~w\",[]]", [S])
    ;   throw(E)
    ).

result_text_(json, Result, V0, Text) :- write_json(Result, V0, Text).
result_text_(plain(1), Result, V0, Text) :- flat_result(Result, Flat), plain_json(Flat, V0, Text).
result_text_(plain(0), Result, V0, Text) :- flat_result(Result, Flat), write_json(Flat, V0, Text).

limit_status(time_limit_exceeded, time).
limit_status(peirce_time_limit, time).
limit_status(error(resource_error(_), _), memory).
limit_status(error(peirce_answer(What), _), What).

%!  ask_batch(+M, +Inf, +Secs, +MaxD, +MiB, +Plain, +BatchJSON, -Out)
%   Many independent questions in one call (no built-ins).  The batch is [Clauses, Items]: a
%   clause is [NVars, Head, Body]; an item is [Indexes, Queries], its clauses the Indexes-th of
%   Clauses (from 1; a clause shared by items is read and built once), the id of each its
%   position in Indexes (from 1); a query is [NVars, Literals], answered as in mode first, the
%   limits applying to each query.  Per item, its clauses are asserted into the scratch module M,
%   the queries run and the clauses are erased.  Out is the JSON of ["ok", [Reply, ...]], a
%   Reply is ["ok", [[Status, Flat], ...]] (see flat_result/2) or ["error", Message]: an item
%   that fails or raises spoils no other item.
ask_batch(M, Inf, Secs, MaxD, MiB, Plain, BatchJSON, Out) :-
    How = plain(Plain),
    catch(with_memory(MiB, true,
                      ( json_data(BatchJSON, [Clauses, Items]),
                        maplist(batch_clause(M), Clauses, Built),
                        Table =.. [t|Built],
                        maplist(batch_item(M, Table, [Inf, Secs, MaxD], How), Items, Texts) )),
          E, true),
    (   var(E) -> ok_list(Texts, Out) ; error_reply(E, R), write_json(R, Out) ).

%   Each query's reply is written apart, the free variables numbered over the item (as in the
%   reply of prove/10 to one knowledge base).  With Plain = 1 (Python saw that the batch is printable
%   ASCII without a backslash, so every name and constant in the reply is too), a reply is made
%   of lists, strings and numbers whose Prolog text is its JSON: the C term writer writes it.
plain_json(R, V0, Out) :-
    acyclic_or_throw(R),
    term_variables(R, Vs),
    (   Vs == []
    ->  jshape(R, J), format(string(Out), "~q", [J])
    ;   findall(S, ( number_vars(Vs, V0), jshape(R, J), format(string(S), "~q", [J]) ), [Out])
    ).

jshape(X, X) :- integer(X), !, integer_ok(X).
jshape([], []) :- !.
jshape([X|Xs], [Y|Ys]) :- !, jshape(X, Y), jshape(Xs, Ys).
jshape(s(X), S) :- !, atom_string(X, S).
jshape(t(X), J) :- jterm(X, J, []).

%   jterm(+Term)// : the tokens of Term (see the reply encoding at the top of this file)
jterm(X) --> { var(X) }, !, { get_attr(X, peirce_meta, I) }, [[I]].
jterm([]) --> !, ["[]"].
jterm(X) --> { atom(X) }, !, { atom_string(X, S) }, [S].
jterm(X) --> { integer(X) }, !, { integer_ok(X) }, [X].
jterm(X) --> { float(X) }, !,
    (   { X =:= inf ; X =:= -inf ; X =\= X } -> { format(string(J), "~w", [X]) }, [J] ; [X] ).
jterm(X) --> { string(X) }, !, [["$str", 1], X].   % a string: '$str'(Text)
jterm(X) --> { compound(X) }, !,
    { compound_name_arguments(X, N, As), length(As, A), functor_text(N, F), atom_string(F, S) },
    [[S, A]],
    jterms(As).
jterm(X) --> { format(string(S), "~q", [X]) }, [S].

jterms([]) --> [].
jterms([X|Xs]) --> jterm(X), jterms(Xs).

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

batch_item(M, Table, Lims, How, Item, Text) :-
    (   catch(batch_item_(M, Table, Lims, How, Item, Texts), E, true)
    ->  (   var(E) -> ok_list(Texts, Text) ; empty(M), error_reply(E, R), write_json(R, Text) )
    ;   empty(M),
        write_json([s(error), s("operation failed")], Text)
    ).

batch_item_(M, Table, Lims, How, [Indexes, Queries], Texts) :-
    batch_assert(Indexes, 1, Table, M, Refs),
    maplist(run_query(M, Lims, first, 1), Queries, Results),
    maplist(erase, Refs),
    Lims = [_, Secs|_],
    foldl(result_text(How, Secs), Results, Texts, 0, _).

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
error_reply(error(resource_error(_), _), [s(error), s("memory limit exceeded")]) :- !.
error_reply(error(peirce_answer(integer), _), [s(error), s(Msg)]) :- !,
    Msg = "an answer holds an integer of more than 4000 digits".
error_reply(error(peirce_answer(cyclic), _), [s(error), s("an answer is a cyclic term")]) :- !.
error_reply(E, [s(error), s(Msg)]) :- message_text(E, Msg).

run(add, [M, Clauses], N) :-
    add_clauses(M, Clauses, 0, N).
run(remove, [M, Clauses], N) :-
    foldl(remove_clause(M), Clauses, 0, N).
run(close, [M], 1) :-
    forall(( current_predicate(M:N/A), functor(H, N, A),
             \+ predicate_property(M:H, imported_from(_)) ),
           abolish(M:N/A)).
run(parse_program, [Text], Items) :-
    parse_program(Text, Items).
run(first_item, [Text], Item) :-
    first_item(Text, Item).
run(save, [M, Path, Saved], 1) :-
    save_kb(M, Path, Saved).
run(restore, [Qlf, Saved], Done) :-
    restore_kb(Qlf, Saved, Done).
run(close_saved, [M], 1) :-
    run(close, [M], _),
    (   module_property(M, file(F)) -> unload_file(F) ; true ).
run(has_head, [M, [NV, [Lit]]], B) :-
    length(Vs, NV),
    dec_goal(Lit, Vs, G),
    (   catch(\+ \+ call(M:G, _, _), error(existence_error(_, _), _), fail) -> B = 1 ; B = 0 ).
run(unload, [M, From, To], 1) :-
    unload_range(M, From, To).
run(parse_query, [Text], Query) :-
    parse_query(Text, Query).
run(load, [Name, Path], s(Module)) :-
    load_files(Name:Path, [if(not_loaded)]),
    absolute_file_name(Path, Abs),
    (   source_file_property(Abs, module(Module)) -> true ; Module = Name ).
run(output, [], s(Text)) :-
    peirce_control:take_output(Text).
run(inferences, [], N) :-
    peirce_control:last_inferences(N).
run(export, [Path, Clauses], 1) :-
    export_program(Path, Clauses).
run(clause_ids, [M, From, To], r(Text)) :-   % (a million ids: written at once, not one by one)
    clause_ids(M, From, To, Ids),
    atomic_list_concat(Ids, ',', Text0),
    atomic_list_concat(['[', Text0, ']'], Text).
run(facts_like, [M, [NV, [Lit]], Max], Ids) :-
    facts_like(M, NV, Lit, Max, Ids).
run(facts_matching, [M, [NV, [Lit]], Max], Ids) :-
    facts_matching(M, NV, Lit, Max, Ids).
run(mentions, [M, X], B) :-
    dec(X, [], A),
    (   mentions(M, A) -> B = 1 ; B = 0 ).
run(link, [M, From], N) :-
    link_module(M, From, N).

%  ------------------------------------------------------------------------------------------
%  A knowledge base asked about its clauses without reading them into Python (the gate's chain
%  judge over a program of a million facts): their ids in order, the facts like a literal, whether
%  a name is an argument of some clause; and a module that holds another's clauses by linking to
%  them, not by a copy (the classical reading: the program and its rules' contrapositives).

%   clause_ids(+M, +From, +To, -Ids): the ids in From..To-1 of M's clauses, in order.
clause_ids(M, From, To, Ids) :-
    findall(Id, ( kb_predicate(M, H, _, A2), A2 >= 2, IdPos is A2 - 1,
                  clause(M:H, true), arg(IdPos, H, Id), integer(Id), Id >= From, Id < To ),
            Ids0),
    msort(Ids0, Ids).

%   facts_like(+M, +NV, +Lit, +Max, -Ids): the ids (at most Max, in order) of M's facts whose head
%   is a variant of the literal Lit; facts_matching/5: whose head is an instance of it (both found
%   by its first argument's index when it is bound).
facts_like(M, NV, Lit, Max, Ids) :-
    facts_with(variant, M, NV, Lit, Max, Ids).
facts_matching(M, NV, Lit, Max, Ids) :-
    facts_with(instance, M, NV, Lit, Max, Ids).

facts_with(How, M, NV, Lit, Max, Ids) :-
    length(Vs, NV),
    dec_goal(Lit, Vs, G),
    G \= '$b'(_), G \= '$c'(_, _),
    stored(G, _, [], S0),
    findall(Id, limit(Max, ( copy_term(S0, S),
                             catch(clause(M:S, true, Ref), error(existence_error(_, _), _), fail),
                             clause(M:S2, true, Ref),
                             stored_head(S2, G2, Id),
                             head_is(How, G, G2) )),
            Ids).

head_is(variant, G, G2) :- G2 =@= G.
head_is(instance, G, G2) :- subsumes_term(G, G2).

%   stored_head(+Stored, -Head, -Id): the head of a stored fact (see stored/4), and its id.
stored_head(S, G, Id) :-
    S =.. [N|As],
    append(Hs, [Id, Body], As),
    !,
    Body == [],
    G =.. [N|Hs].

%   mentions(+M, +A): the atomic A is an argument of the head of some clause of M.
mentions(M, A) :-
    kb_predicate(M, H, _, A2),
    A2 > 2,
    Last is A2 - 2,
    between(1, Last, I),
    copy_term(H, H1),
    arg(I, H1, A),
    catch(clause(M:H1, true, Ref), error(existence_error(_, _), _), fail),
    clause(M:H2, true, Ref),
    arg(I, H2, X),
    X == A,
    !.

%   link_module(+M, +From, -N): every relation of From holds in M too, by a clause that calls
%   From (the clauses stay in From, once in memory; From must outlive M); N relations linked.
link_module(M, From, N) :-
    findall(Na/A2, kb_predicate(From, _, Na, A2), Rels),
    forall(member(Na/A2, Rels),
           ( functor(H, Na, A2),
             (   current_predicate(M:Na/A2) -> true ; dynamic(M:Na/A2) ),
             assertz(M:(H :- From:H)) )),
    length(Rels, N).

%   [MangledName, Arity, Id]: the clause Id of that relation goes.
remove_clause(M, [N, A, Id], C0, C) :-
    A2 is A + 2,
    functor(F, N, A2),
    A1 is A + 1,
    arg(A1, F, Id),
    (   retract(M:F) -> C is C0 + 1 ; C = C0 ).

message_text(E0, Msg) :-
    shallow(E0, E),   % a deep or large culprit is cut: SWI-Prolog writes terms nesting in C
    catch(( phrase('$messages':translate_message(E), Lines),
            with_output_to(string(S0), print_message_lines(current_output, '', Lines)),
            split_string(S0, "", "\n ", [Msg]) ),
          _, format(string(Msg), "~q", [E])).

%   shallow(+Term, -Shallow): Term cut at a depth of 8 and after 200 compounds (the rest '...').
shallow(T, S) :- shallow(T, 8, b(200), S).

shallow(T, _, _, T) :- \+ compound(T), !.
shallow(_, 0, _, ...) :- !.
shallow(T, D, B, S) :-
    arg(1, B, N),
    (   N =< 0
    ->  S = ...
    ;   N1 is N - 1,
        nb_setarg(1, B, N1),
        compound_name_arguments(T, F, As),
        D1 is D - 1,
        maplist(shallow_(D1, B), As, Bs),
        compound_name_arguments(S, F, Bs)
    ).

shallow_(D, B, T, S) :- shallow(T, D, B, S).

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
    (   ( G = '$b'(_) ; G = '$c'(_, _) )
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
    ;   N == 'c:$ctl', Ts = [Raw]
    ->  peirce_control:ctl_build(Raw, X),     % a control construct (control.pl)
        G = '$c'(X, Raw)
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
dec(['$str', A], _, S) :- atom(A), !, atom_string(A, S).   % a string (see jterm//1)
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

%   Lims = [Inferences, Seconds, MaxDepth]; a query is [NVars, Literals].
%   Mode: first (one proof) or all (up to Limit distinct answers).
%   Result = [Status, Solutions], Status in ok / depth / inferences / time / memory,
%   a solution is [Goals, Proofs] with the goals instantiated (Goals is [] in mode first: the
%   root of each proof shows the instance).
%   The time limit is an alarm (call_with_time_limit/2), which interrupts every part of the
%   search, tabled resolution and built-ins included; a deadline checked at every step of the
%   meta-interpreter backs it up.  The memory limit of the call (see with_memory/3) applies to
%   each query as a whole: a query that reaches it has status memory.
run_query(M, [Inf, Secs, MaxD], Mode, Limit, [NV, Lits], [Status, Sols]) :-
    length(Vs, NV),
    maplist(dec_goal_(Vs), Lits, Goals),
    get_time(Now),
    Deadline is Now + Secs,
    St = st(false),
    Acc = acc([], ok),
    Ctx = ctx(M, MaxD, St, Deadline, none),
    nb_setval(peirce_too_deep, false),
    nb_setval(peirce_atom_bytes, 0),
    raw_inferences(Mode, Inf, Raw),
    bounded(Secs, Raw, collect(Mode, Limit, Inf, Goals, Ctx, Acc), R),
    (   nb_getval(peirce_too_deep, true) -> nb_setarg(1, St, true) ; true ),
    arg(1, Acc, Found0),
    reverse(Found0, Found),
    (   Mode == all -> maplist(solution, Found, Sols)
    ;   Mode == prolog -> maplist(prolog_solution, Found, Sols)
    ;   maplist(proofs_only, Found, Sols)
    ),
    (   R == inference_limit_exceeded -> Status = s(inferences)
    ;   arg(2, Acc, inferences) -> Status = s(inferences)
    ;   R == time -> Status = s(time)
    ;   R == memory -> Status = s(memory)
    ;   arg(1, St, true) -> Status = s(depth)
    ;   Status = s(ok)
    ).

%   raw_inferences(+Mode, +Inf, -Raw): the bound on SWI-Prolog's own inferences.  The control
%   solver counts the program's inferences itself, as SWI-Prolog counts them running the
%   program (control.pl's collect/5), and stops at Inf; SWI-Prolog's count of the whole search,
%   solver and proofs included, is bounded too, a hundred times as high (the solver takes some
%   ten of its inferences for one of the program), in case some work escaped the count.
raw_inferences(Mode, Inf, Raw) :-
    (   ( Mode == prolog ; Mode == prolog1 ) -> Raw is Inf * 100 ; Raw = Inf ).

collect(prolog, Limit, Inf, Goals, Ctx, Acc) :- !,  % depth first, as SWI-Prolog (control.pl)
    peirce_control:collect(Limit, Inf, Goals, Ctx, Acc).
collect(prolog1, _, Inf, Goals, Ctx, Acc) :- !,
    peirce_control:collect(1, Inf, Goals, Ctx, Acc).
collect(first, _, _, Goals, Ctx, Acc) :- !,
    (   shallowest(Goals, Ctx, check, Proofs) -> nb_setarg(1, Acc, [Goals-Proofs]) ; true ).
collect(all, Limit, Inf, Goals, Ctx, Acc) :-
    %   Depth-first search first, with a quarter of the inferences: when it completes, the
    %   answers come in Prolog's order.  When it was cut (by the depth bound, on cyclic rules
    %   with unbound arguments, or by its budget), tabled resolution (complete and terminating
    %   for Datalog) finds the remaining answers, each with a shallowest proof.
    Ctx = ctx(M, MaxD, _, Deadline, _),
    Quarter is max(1, Inf // 4),
    Cut = st(false),
    search_ctx(M, MaxD, Cut, Deadline, DCtx),
    call_with_inference_limit(depth_first_all(Limit, Goals, DCtx, Acc), Quarter, R0),
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
    (   limit(Limit, distinct(Goals, ( prove_all(Goals, 0, [], Ctx, Proofs),
                                       within_memory(Goals) ))),
        arg(1, Acc, L0),
        nb_setarg(1, Acc, [Goals-Proofs|L0]),
        fail
    ;   true
    ).

bounded(Secs, Inf, Goal, R) :-
    catch(call_with_time_limit(Secs, call_with_inference_limit(Goal, Inf, R)), E, stopped(E, R)).

stopped(E, R) :-
    (   limit_status(E, S), S \== integer -> R = S ; throw(E) ),
    reset_tables.

%   shallowest(+Goals, +Ctx, +Check, -Proofs): iterative deepening, so the first proof found is a
%   shallowest one (a fact the knowledge base states is preferred to a derivation of it).  A
%   bound that cut no branch means the search was complete.  Bounds grow by one up to 16, then
%   double, up to the depth limit.  With Check = check, a bounded search that was cut after
%   spending more than 2,000 inferences first asks tabled resolution (once) whether the goals
%   hold at all: failure is then found in polynomial time where depth-first search would
%   enumerate exponentially many paths.  Cheap searches never pay for setting up the tables,
%   unless they are cut at the depth limit itself: tabled resolution then tells a failure (a
%   loop through a variant goal, p(X) :- p(Y), cuts every bound) from a proof deeper than the
%   limit, which alone is reported as the depth limit.
shallowest(Goals, Ctx, Check, Proofs) :-
    deepen(1, Ctx, Goals, Check, Proofs).

deepen(D, Ctx, Goals, Check, Proofs) :-
    Ctx = ctx(M, MaxD, St, Deadline, _),
    Bound is min(D, MaxD),
    Cut = st(false),
    search_ctx(M, Bound, Cut, Deadline, BCtx),
    statistics(inferences, I0),
    (   prove_all(Goals, 0, [], BCtx, Proofs0)
    ->  Proofs = Proofs0
    ;   arg(1, Cut, false)
    ->  fail
    ;   Bound >= MaxD
    ->  (   Check == check, tq(Ctx, Q), \+ tabled_holds(Goals, Q)
        ->  fail                    % no proof at any depth: a complete failure
        ;   nb_setarg(1, St, true),
            fail
        )
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
tq(ctx(M, MaxD, _, Deadline, _), q(M, MaxSize)) :-
    MaxSize is 8 * MaxD,
    nb_setval(peirce_deadline, Deadline).

tabled_all([], _).
tabled_all([G|Gs], Q) :- tabled(G, Q), tabled_all(Gs, Q).

%   (The size of a goal is checked before the goal reaches the table, and that of an answer
%   before the answer does: SWI-Prolog's tables store terms as trees, so a term that shares
%   subterms, f(X, X) nested sixty times, would take exponential time and space to store.)
tabled('$b'(G), _) :- !, builtin_call(G).
tabled(G, Q) :-
    Q = q(_, MaxSize),
    (   tree_within(G, MaxSize) -> tp(Q, G) ; nb_setval(peirce_too_deep, true), fail ).

:- table tp/2.

tp(q(M, MaxSize), G) :-
    get_time(Now),
    nb_getval(peirce_deadline, Deadline),
    (   Now > Deadline -> throw(peirce_time_limit) ; true ),
    call(M:G, _, Body),
    tabled_all(Body, q(M, MaxSize)),
    (   tree_within(G, MaxSize) -> true ; nb_setval(peirce_too_deep, true), fail ).

%!  tree_within(+Term, +Max) is semidet.
%   Term, written out as a tree (a shared subterm counted at each of its occurrences), has at
%   most Max cells (a compound of arity N counts 1 + N, as term_size/2 counts it); the cost is at
%   most Max steps, in Prolog, so a time limit interrupts it.  Some C built-ins of SWI-Prolog
%   walk a term as a tree and cannot be interrupted (hashing a term for distinct/2 or a table,
%   evaluating arithmetic): terms reach them only after this check.
%   Most terms share no subterm: then the term's size on the stack, in cells, is its size as a
%   tree, and two C built-ins measure it in one pass each ('$term_size'/3 stops past Max;
%   '$factorize_term'/3 lists the subterms that occur more than once, none here), instead of
%   a walk in Prolog of two or three calls per cell.  A term that shares a subterm, or whose
%   numbers and strings make it larger on the stack than as counted here, is walked.
tree_within(T, Max) :-
    (   '$term_size'(T, Max, _),
        '$factorize_term'(T, _, [])
    ->  true
    ;   tree_within_([T], 0, Max)
    ).

tree_within_([], _, _).
tree_within_([T|Ts], N0, Max) :-
    (   compound(T)
    ->  compound_name_arity(T, _, A),
        N is N0 + 1 + A,
        N =< Max,
        push_args(A, T, Ts, Ts1),
        tree_within_(Ts1, N, Max)
    ;   tree_within_(Ts, N0, Max)
    ).

push_args(0, _, Ts, Ts) :- !.
push_args(I, T, Ts0, Ts) :- arg(I, T, X), I1 is I - 1, push_args(I1, T, [X|Ts0], Ts).

%   within_memory(+Term): Term, as a tree, fits the memory limit (a cell for every 64 bytes of
%   the stack limit); else a resource error (status memory).  A term of at most 40 cells on the
%   stack (the usual arithmetic comparison) is at most 146,089 cells as a tree however its
%   subterms are shared, within the smallest limit (16 MiB: 262,144 cells): no more is asked.
within_memory(T) :-
    (   '$term_size'(T, 40, _)
    ->  true
    ;   current_prolog_flag(stack_limit, Bytes),
        Max is Bytes // 64,
        (   tree_within(T, Max) -> true ; throw(error(resource_error(term_size), _)) )
    ).

proofs_only(_-Proofs, [[], Ps]) :-
    maplist(tag(p), Proofs, Ps).

prolog_solution(Goals0-Proofs, Sol) :-   % a control literal answered as it was written
    maplist(as_written, Goals0, Goals),
    solution(Goals-Proofs, Sol).

as_written('$c'(_, Raw), 'c:$ctl'(Raw)) :- !.
as_written(G, G).

solution(Goals-Proofs, [Gs, Ps]) :-
    maplist(tag(t), Goals, Gs),
    maplist(tag(p), Proofs, Ps).

tag(F, X, T) :- T =.. [F, X].

prove_all([], _, _, _, []).
prove_all([G|Gs], D, Anc, Ctx, [P|Ps]) :-
    prove(G, D, Anc, Ctx, P),
    prove_all(Gs, D, Anc, Ctx, Ps).

prove('$b'(G), _, _, _, b(G)) :- !,
    builtin_call(G).
prove(G, D, Anc, Ctx, n(Id, G, Ps)) :-
    Ctx = ctx(M, MaxD, St, Deadline, T),
    (   D >= MaxD
    ->  nb_setarg(1, St, true),
        fail
    ;   true
    ),
    get_time(Now),
    (   Now > Deadline -> throw(peirce_time_limit) ; true ),
    D1 is D + 1,
    (   ( D < 32 ; \+ ground(G) )
    ->  \+ looping(G, Anc),
        call(M:G, Id, Body),           % the stored fact G(Args..., Id, Body); see stored/4
        prove_all(Body, D1, [G|Anc], Ctx, Ps)
    ;   term_hash(G, H),               % a ground goal past the listed depth: hashed
        functor(T, _, N),
        I is H mod N + 1,
        arg(I, T, B0),
        \+ eq_member(G, B0),
        \+ eq_member(G, Anc),
        call(M:G, Id, Body),
        setarg(I, T, [G|B0]),          % undone on backtracking into the search above
        prove_all(Body, D1, Anc, Ctx, Ps),
        setarg(I, T, B0)               % G is no ancestor of the goals after it
    ).

%   A whitelisted built-in.  The atoms atom_concat/3 makes live outside the stacks that the
%   stack limit bounds, so their length counts against a budget of the query (a sixteenth of
%   the stack limit, in characters): a query that would exceed it stops with status memory.
builtin_call(atom_concat(A, B, C)) :- !,
    (   atomic(A), atomic(B)
    ->  atom_length(A, LA), atom_length(B, LB), L is LA + LB,
        atom_budget(L),
        atom_concat(A, B, C)
    ;   atom_concat(A, B, C),
        atom_length(C, L),
        atom_budget(L)
    ).
builtin_call(G) :-
    (   arithmetic(G) -> within_memory(G) ; true ),
    call(G).

%   The built-ins that evaluate arithmetic (walking their expressions as trees, in C).
arithmetic(_ is _).     arithmetic(_ =:= _).    arithmetic(_ =\= _).    arithmetic(_ < _).
arithmetic(_ > _).      arithmetic(_ =< _).     arithmetic(_ >= _).     arithmetic(sum_list(_, _)).
arithmetic(max_list(_, _)).  arithmetic(min_list(_, _)).

atom_budget(L) :-
    nb_getval(peirce_atom_bytes, N0),
    N is N0 + L,
    current_prolog_flag(stack_limit, Max),
    (   N > Max // 16
    ->  throw(error(resource_error(atom_space), _))
    ;   nb_setval(peirce_atom_bytes, N)
    ).

%   A ground goal that is its own ancestor needs no proof of its own: a shortest proof never
%   repeats a ground atom on a branch.  A goal with variables is never pruned (a variant of an
%   ancestor may still have the answers the ancestor needs); the depth bound stops it.
%   The ancestors of the first 32 levels, and those that had variables when they were called
%   (they may have been bound since), are a list (Anc); the ground ancestors deeper than that
%   are in a hash table (T, a term whose arguments are lists of goals, changed with setarg/3:
%   an ancestor is added before its body is proved and taken out after), so that the check is
%   constant per step however deep the proof: a list alone made a proof of depth D cost D^2.
looping(G, Anc) :- ground(G), eq_member(G, Anc).

%   search_ctx(+M, +Bound, +Cut, +Deadline, -Ctx): the context of one depth-bounded search, with
%   a hash table of ancestors when the bound lets a proof pass the listed levels.
search_ctx(M, Bound, Cut, Deadline, ctx(M, Bound, Cut, Deadline, T)) :-
    (   Bound > 32
    ->  N is min(Bound, 65536),
        length(Bs, N),
        maplist(=([]), Bs),
        T =.. [ancestors|Bs]
    ;   T = none
    ).

eq_member(G, [A|As]) :- ( G == A -> true ; eq_member(G, As) ).

%  ------------------------------------------------------------------------------------------
%  Writing JSON (compact and fast).  A reply is built from lists (JSON arrays), integers,
%  s(Text) (a JSON string), t(Term) (a term, written flat: see the reply encoding at the top of
%  this file) and p(Proof) (a proof n(Id, Goal, SubProofs) or b(Goal), written flat).  The free
%  variables are numbered from V0 in the order term_variables/2 finds them (each carries its
%  number as an attribute while the reply is written, so finding it costs nothing).  A cyclic reply or an integer of more
%  than 4,000 digits raises error(peirce_answer(cyclic | integer), _).

write_json(T, Out) :- write_json(T, 0, Out).

write_json(T, V0, Out) :-
    acyclic_or_throw(T),
    term_variables(T, Vs),
    (   Vs == []
    ->  phrase(wv(T), Codes), string_codes(Out, Codes)
    ;   findall(S, ( number_vars(Vs, V0), phrase(wv(T), Codes), string_codes(S, Codes) ), [Out])
    ).

acyclic_or_throw(T) :-
    (   acyclic_term(T) -> true ; throw(error(peirce_answer(cyclic), _)) ).

number_vars([], _).
number_vars([V|Vs], I) :- put_attr(V, peirce_meta, I), I1 is I + 1, number_vars(Vs, I1).

attr_unify_hook(_, _) :- fail.   % a numbered variable is never unified (only written)

%   integer_ok(+N): N has at most 4,000 digits (Python reads no more than 4,300).
integer_ok(N) :-
    (   N < 1 << 62, N > -(1 << 62) -> true
    ;   big_integer(Big), N < Big, N > -Big -> true
    ;   throw(error(peirce_answer(integer), _))
    ).

:- dynamic big_integer/1.
:- Big is 10^4000, assertz(big_integer(Big)).

wv(X) --> { integer(X) }, !, num(X).
wv([]) --> !, "[]".
wv([X|Xs]) --> !, "[", wv(X), wvl(Xs), "]".
wv(s(X)) --> !, str(X).
wv(r(X)) --> !, { atom_codes(X, Cs) }, Cs.     % JSON text written already (numbers, ...)
wv(t(X)) --> !, "[", wt(X), "]".
wv(p(X)) --> !, "[", wp(X), "]".
wv(X) --> { type_error(reply, X) }.

wvl([]) --> [].
wvl([X|Xs]) --> ",", wv(X), wvl(Xs).

%   a proof: its nodes in preorder, each Id, Goal, number of children
wp(n(Id, G, Ps)) --> num(Id), ",[", wt(G), "],", { length(Ps, K) }, num(K), wpl(Ps).
wp(b(G)) --> "-1,[", wt(G), "],0".
wp(c(K, G, Ps)) --> "-2,[", wt('$ctl'(K, G)), "],", { length(Ps, N) }, num(N), wpl(Ps).

wpl([]) --> [].
wpl([P|Ps]) --> ",", wp(P), wpl(Ps).

%   a term: its tokens in preorder
wt(X) --> { var(X) }, !, { get_attr(X, peirce_meta, I) }, "[", num(I), "]".
wt([]) --> !, "\"[]\"".
wt(X) --> { atom(X) }, !, str(X).
wt(X) --> { integer(X) }, !, num(X).
wt(X) --> { float(X) }, !,
    (   { X =:= inf ; X =:= -inf ; X =\= X }
    ->  { format(string(S), "~w", [X]) }, str(S)
    ;   num(X)
    ).
wt(X) --> { string(X) }, !, "[\"$str\",1],", str(X).   % a string: '$str'(Text)
wt(X) --> { compound(X) }, !,
    { compound_name_arguments(X, N, As), length(As, A), functor_text(N, F) },
    "[", str(F), ",", num(A), "]",
    wtl(As).
wt(X) --> { format(string(S), "~q", [X]) }, str(S).

wtl([]) --> [].
wtl([X|Xs]) --> ",", wt(X), wtl(Xs).

%   The text of a functor: an atom, '[]' for the reserved symbol [] of SWI-Prolog 7 (as in
%   [](x)), the quoted text of anything else (the functor of a dict).
functor_text(N, N) :- atom(N), !.
functor_text([], '[]') :- !.
functor_text(N, T) :- format(atom(T), "~q", [N]).

num(N, Codes, Tail) :- integer(N), !, integer_ok(N), format(codes(Codes, Tail), "~w", [N]).
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


%  ------------------------------------------------------------------------------------------
%  Reading Prolog text as data (the console's .pl files and queries).  read_term/3 only parses;
%  nothing read is ever called.  Directives and queries in a file are reported, not run.
%  Items: ["clause", Line, Col, Start, End, Names, Head, Body]
%         ["skipped", Line, Col, Start, End, Kind, Text]
%         ["warning", Line, Col, Start, End, Message, Relation]
%         ["error", Line, Col, Start, End, Message]
%  Names pairs each variable with its name: [[Var, "X"], ...].

parse_program(Text, Items) :-
    setup_call_cleanup(( open_string(Text, S), nb_setval(peirce_read_ops, []) ),
                       read_items(S, Items),
                       ( close(S), nb_setval(peirce_read_ops, []) )).

read_items(S, Items) :-
    peirce_control:read_options(Opts),   % with the operators the text declared (control.pl)
    catch(( bounded_read(S, T, [variable_names(Vs), term_position(P)|Opts]),
            Item0 = term(T, Vs, P) ),
          error(syntax_error(What), Ctx),
          Item0 = syntax(What, Ctx)),
    character_count(S, End),
    (   Item0 = term(end_of_file, _, _)
    ->  Items = []
    ;   item(Item0, End, Items, Rest),
        read_items(S, Rest)
    ).

%!  bounded_read(+Stream, -Term, +Options)
%   read_term/3 of a term with at most 5,000 opening brackets.  The reader nests in C for each
%   bracket, and the engine embedded in Python has no check of its C stack (signals are off), so
%   a term nested tens of thousands deep would crash the process: the term's text is first
%   taken as it is ('$raw_read'/2, which does not nest), its brackets counted (quoted ones too:
%   the count bounds the nesting from above), and a term with more is skipped with a syntax
%   error.  Operators nest without brackets, but the reader parses them without nesting in C.
bounded_read(S, T, Opts) :-
    stream_property(S, position(P)),
    (   catch('$raw_read'(S, Raw), _, fail),
        split_string(Raw, "([{", "", Parts),
        length(Parts, N1),
        N1 > 5001
    ->  stream_position_data(line_count, P, L),
        stream_position_data(line_position, P, LP),
        stream_position_data(char_count, P, B),
        throw(error(syntax_error('more than 5000 opening brackets in one term'),
                    stream(S, L, LP, B)))
    ;   set_stream_position(S, P),
        read_term(S, T, Opts)
    ).

item(syntax(What, Ctx), End, [[s(error), L, C, B, End, s(Msg)]|T], T) :- !,
    (   ( Ctx = stream(_, L, LP, B) ; Ctx = file(_, L, LP, B) ) % (a file read by load_text)
    ->  C is LP + 1
    ;   L = 1, C = 1, B = 0
    ),
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

clause_item(T, _, _, _) :- sub_term(X, T), bad_data(X, Why), !, refuse(Why).
clause_item((:- op(P, T, N)), Vs, skipped(s(directive), s(Text)), []) :- !,
    peirce_control:read_op(P, T, N),     % applied to reading the rest of the text, not run
    show(op(P, T, N), Vs, Text0),
    string_concat(Text0, " (applied to reading the rest of the text)", Text).
clause_item((:- D), Vs, skipped(s(directive), s(Text)), []) :- !, show(D, Vs, Text).
clause_item((?- Q), Vs, skipped(s(query), s(Text)), []) :- !, show(Q, Vs, Text).
clause_item((H --> B), Vs, Item, Ws) :- !,   % the standard translation, as data
    (   catch(dcg_translate_rule((H --> B), C), _, fail)
    ->  clause_item(C, Vs, Item, Ws)
    ;   refuse("this grammar rule (-->) cannot be translated")
    ).
clause_item((H :- B), Vs, clause(Names, t(Head), Body), Ws) :- !,
    head_literal(H, Head),
    conj_literals(B, Gs, Ws0),
    head_warning(H, Ws0, Ws),
    maplist(tag(t), Gs, Body),
    names(Vs, Names).
clause_item(H, Vs, clause(Names, t(Head), []), Ws) :-
    head_literal(H, Head),
    head_warning(H, [], Ws),
    names(Vs, Names).

%   A clause of a relation that is reserved (see reserved/3) is read as data like any other, and
%   warned about: it never reaches a program written for SWI-Prolog.  (The relation of the
%   warning is "", so that defining the relation does not silence it.)
head_warning(H, Ws0, Ws) :-
    (   H \= -(_), functor(H, N, A), reserved(N, A, Why)
    ->  format(string(W), "~q/~d is ~w: it is read as an ordinary relation, and left out of a program written for SWI-Prolog", [N, A, Why]),
        Ws = [W-""|Ws0]
    ;   Ws = Ws0
    ).

%   Data that has no reply encoding: a dict, an integer Python would not read.
bad_data(X, "dicts are not supported") :- is_dict(X).
bad_data(X, "an integer of more than 4000 digits") :- integer(X), \+ catch(integer_ok(X), _, fail).

show(T, Vs, Text) :-   % (max_depth: operators nest without brackets; see bounded_read/3)
    format(string(Text), "~W",
           [T, [quoted(true), variable_names(Vs), portray(false), max_depth(100)]]).

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
body_literal(G, L, []) :- callable(G), functor(G, N, A), builtin(N, A), !,
    G =.. [N|As], atom_concat('b:', N, BN), L =.. [BN|As].
body_literal(G, L, []) :- peirce_control:ctl_literal(G, L), !.   % see control.pl
body_literal(G, _, _) :- control(G, Why), !, refuse(Why).
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
    split_string(T1, "([{", "", Parts),
    length(Parts, N1),
    (   N1 > 5001 -> refuse("syntax error: more than 5000 opening brackets in the query") ; true ),
    catch(term_string(Q, T1, [variable_names(Vs), syntax_errors(error)]),
          error(syntax_error(What), _),
          ( format(string(M), "syntax error: ~w", [What]), refuse(M) )),
    (   Q = (?- Q1) -> true ; Q1 = Q ),
    (   sub_term(X, Q1), bad_data(X, Why) -> refuse(Why) ; true ),
    conj_literals(Q1, Gs, _),
    maplist(tag(t), Gs, Goals),
    names(Vs, Names).

%   export(+Path, +[[Label, Clause], ...]): a .pl file for SWI-Prolog's own top level.
%   Relations that are reserved (see reserved/3) are left out, with every clause that defines or
%   calls one, and a comment says so; every other relation is declared dynamic and
%   discontiguous.  Each clause is written by write_term/3 with its variables named A, B, ...
%   (a singleton _) and numbervars(false), so a '$VAR'(1) in the data stays a term; a label
%   becomes a comment on one line (every control or line-breaking character a space).
export_program(Path, Items) :-
    setup_call_cleanup(open(Path, write, S, [encoding(utf8)]),
                       write_program(S, Items),
                       close(S)).

write_program(S, Items) :-
    format(S, ":- encoding(utf8).~n", []),
    findall(PI, ( member([_, [_, _, H, B]], Items), member(L, [H|B]), lit_pi(L, PI) ), PIs0),
    sort(PIs0, PIs),
    include(left_out, PIs, Out),
    forall(( member(N/A, Out), reserved(N, A, Why) ),
           format(S, "% left out: ~q/~d is ~w; its clauses could run code~n", [N, A, Why])),
    subtract(PIs, Out, Own),
    forall(member(PI, Own), write_clause(S, (:- dynamic(PI)))),
    forall(member(PI, Own), write_clause(S, (:- discontiguous(PI)))),
    forall(( member([Label, C], Items), \+ uses_any(C, Out) ), write_item(S, Label, C)).

left_out(N/A) :- reserved(N, A, _).

uses_any([_, _, H, B], Out) :- member(L, [H|B]), lit_pi(L, PI), memberchk(PI, Out), !.

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
    (   Label == '' -> true ; comment_text(Label, L1), format(S, "% ~w~n", [L1]) ),
    (   B2 == [] -> C = H2 ; list_conj(B2, Body), C = (H2 :- Body) ),
    write_clause(S, C).

write_clause(S, C) :-
    term_variables(C, Vs),
    term_singletons(C, Ss),
    var_names(Vs, Ss, 0, Names),
    Opts = [quoted(true), numbervars(false), variable_names(Names), spacing(next_argument)],
    (   C = (H :- B)
    ->  write_term(S, H, [priority(1199)|Opts]),
        write(S, ' :-'),
        conj_list(B, Gs),
        write_goals(Gs, S, Opts)
    ;   write_term(S, C, [priority(1200), fullstop(true), nl(true)|Opts])
    ).

write_goals([G|Gs], S, Opts) :-
    format(S, "~n    ", []),
    (   Gs == []
    ->  write_term(S, G, [priority(999), fullstop(true), nl(true)|Opts])
    ;   write_term(S, G, [priority(999)|Opts]),
        write(S, ','),
        write_goals(Gs, S, Opts)
    ).

conj_list((A, B), [A|Gs]) :- !, conj_list(B, Gs).
conj_list(G, [G]).

var_names([], _, _, []).
var_names([V|Vs], Ss, I, [Name=V|Ns]) :-
    (   eq_member(V, Ss)
    ->  Name = '_', I1 = I
    ;   Letter is 0'A + I mod 26,
        Round is I // 26,
        (   Round =:= 0 -> atom_codes(Name, [Letter]) ; format(atom(Name), "~c~d", [Letter, Round]) ),
        I1 is I + 1
    ),
    var_names(Vs, Ss, I1, Ns).

comment_text(Label, Text) :-
    atom_codes(Label, Cs0),
    maplist(comment_code, Cs0, Cs),
    atom_codes(Text, Cs).

comment_code(C0, C) :-
    (   ( C0 < 0x20 ; C0 =:= 0x7f ; C0 =:= 0x85 ; C0 =:= 0x2028 ; C0 =:= 0x2029 )
    ->  C = 0'\s
    ;   C = C0
    ).

plain('$b'(G), G) :- !.
plain('$c'(_, '$goal'(G)), G) :- !.   % a control construct, as written (control.pl)
plain(G, P) :-
    G =.. [MN|As],
    sub_atom(MN, 0, 2, _, Prefix),
    sub_atom(MN, 2, _, 0, N),
    P0 =.. [N|As],
    (   Prefix == 'n:' -> P = -(P0) ; P = P0 ).

list_conj([G], G) :- !.
list_conj([G|Gs], (G, C)) :- list_conj(Gs, C).

%  ------------------------------------------------------------------------------------------
%  SWI-Prolog's own top level on a knowledge base (peirce console --swipl), started as
%
%      swipl -f none --no-packs -s meta.pl -g peirce_meta:swipl_console -- FILE
%
%  FILE (written by export_program/2) is read as data, never consulted: each clause is checked
%  (its head a relation that is not reserved, its body relations and whitelisted built-ins) and
%  asserted into the module kb, so no directive in it runs and no expansion hook applies while
%  it loads (a declaration of a dynamic or discontiguous relation is obeyed, any other directive
%  or clause is reported and left out).  The top level then answers in module kb, and every
%  query goes through checked_query/4, the one clause of user:expand_query/4: the query is
%  expanded, and library(sandbox) must find that it calls nothing that could touch the system
%  (shell/1, process_create/3, open/4, assert into another module, ...), or the top level
%  refuses it with the reason.  So even a hook the reserved list missed could not make the top
%  level run code: the knowledge base defines nothing in module user, and what a query runs is
%  checked after every expansion.  halt/0, halt/1 and listing/0,1 are allowed as well.
%
%  library(sandbox) takes printing for safe (print_message/2, message_to_string/2 and the
%  messages of uncaught errors), but a message term may carry its own format string, and two
%  directives of format/2 run code: ~@ calls its argument and ~W calls the portray_goal/1 of
%  its options.  So before the top level starts, both directives are redefined for the whole
%  process (format_predicate/2 goes before the built-in directives, for every caller of
%  format): ~@ writes the goal it was given, quoted, instead of calling it, and ~W writes its
%  term with only the options that call no code.  What a query or a file says is never run by
%  printing it, however the message reaches format.

%  The files after the knowledge base (peirce console --swipl FILE.pl ...) are the user's
%  programs, read the same way by SWI-Prolog's own reader (read_term/3), so that any file
%  SWI-Prolog reads loads: an op/3 declaration applies to the rest of the reading, and to the
%  queries, in module kb (at most 100, each checked; never run as a directive); a
%  set_prolog_flag/2 of double_quotes or back_quotes applies to the rest of the file's reading;
%  grammar rules are translated by SWI-Prolog's DCG translation, as data; a syntax error is
%  reported with its file, line and column, and the reading goes on after it.  A clause's body
%  may call a relation, a built-in of the whitelist or one that library(sandbox) finds safe
%  (format/2, catch/3, nb_getval/2, ...): the sandbox checks every query again, through the
%  clauses it reaches, so what a clause calls runs only when the sandbox allows it.

swipl_console :-
    format_predicate(0'@, peirce_meta:goal_not_run(_, _)),
    format_predicate(0'W, peirce_meta:write_without_code(_, _, _)),
    current_prolog_flag(argv, Argv),
    (   append(_, ['--peirce-kb', File|Sources], Argv) -> true ; last(Argv, File), Sources = [] ),
    load_kb(File),
    forall(member(Source, Sources), load_kb(Source)),
    module(kb),
    current_prolog_flag(answer_write_options, Opts0),   % answers with kb's operators
    set_prolog_flag(answer_write_options, [module(kb)|Opts0]),
    asserta((user:expand_query(Q0, Q, B0, B) :- peirce_meta:checked_query(Q0, Q, B0, B))).

load_kb(File) :-
    nb_setval(peirce_kb_read, read([], 0)),
    setup_call_cleanup(open(File, read, S, [encoding(utf8)]), load_terms(File, S), close(S)).

load_terms(File, S) :-
    nb_getval(peirce_kb_read, read(Flags, _)),
    catch(read_term(S, T, [module(kb), term_position(P), syntax_errors(error)|Flags]),
          error(syntax_error(What), Context),
          ( syntax_note(File, What, Context), T = '$peirce_skip' )),
    (   T == end_of_file
    ->  true
    ;   T == '$peirce_skip'
    ->  load_terms(File, S)
    ;   stream_position_data(line_count, P, Line),
        b_setval(peirce_kb_at, File:Line),   % (SWI-Prolog's messages say where too)
        kb_term(T),
        load_terms(File, S)
    ).

syntax_note(File, What, Context) :-
    (   Context = file(_, Line, LinePos, _) -> Col is LinePos + 1
    ;   Context = stream(_, Line, LinePos, _) -> Col is LinePos + 1
    ;   Line = '?', Col = '?'
    ),
    print_message(warning,
                  format("peirce: ~w:~w:~w: syntax error: ~w (the reading goes on)",
                         [File, Line, Col, What])).

kb_term((:- encoding(_))) :- !.
kb_term((:- dynamic(Spec))) :- kb_specs(Spec, PIs), !, forall(member(PI, PIs), dynamic(kb:PI)).
kb_term((:- discontiguous(Spec))) :- kb_specs(Spec, _), !.
kb_term((:- op(P, T, Ns))) :- !,
    (   catch(kb_op(P, T, Ns), error(peirce(Why), _), ( left_out_term((:- op(P, T, Ns)), Why), fail ))
    ->  true
    ;   true
    ).
kb_term((:- module(_, Exports))) :- is_list(Exports), !,   % the operators it exports
    forall(member(op(P, T, Ns), Exports), kb_term((:- op(P, T, Ns)))),
    left_out_term((:- module('_', '...')), "a module declaration (its clauses go to kb)").
kb_term((:- set_prolog_flag(F, V))) :- read_flag(F, V), !,
    nb_getval(peirce_kb_read, read(Flags0, K)),
    Opt =.. [F, V],
    exclude(same_option(F), Flags0, Flags1),
    nb_setval(peirce_kb_read, read([Opt|Flags1], K)).
kb_term((H --> B)) :- !,
    (   catch(dcg_translate_rule((H --> B), C), _, fail)
    ->  kb_term(C)
    ;   left_out_term((H --> B), "a grammar rule that cannot be translated")
    ).
kb_term((H :- B)) :- !,
    conj_list(B, Gs),
    (   \+ kb_head(H)
    ->  left_out_term((H :- B))
    ;   member(G, Gs), \+ kb_goal(G)
    ->  format(string(Why), "its body calls ~q, which could reach the system", [G]),
        left_out_term((H :- B), Why)
    ;   assertz(kb:(H :- B))
    ).
kb_term((:- D)) :- !, left_out_term((:- D), "a directive, not run").
kb_term(H) :- ( kb_head(H) -> assertz(kb:H) ; left_out_term(H) ).

kb_specs(Spec, PIs) :-
    (   is_list(Spec) -> L = Spec ; conj_list_comma(Spec, L) ),
    maplist(kb_spec, L, PIs).

conj_list_comma((A, B), [A|L]) :- !, conj_list_comma(B, L).
conj_list_comma(A, [A]).

kb_spec(N/A, N/A) :- kb_relation(N, A).
kb_spec(N//A0, N/A) :- integer(A0), A is A0 + 2, kb_relation(N, A).

read_flag(double_quotes, V) :- memberchk(V, [codes, chars, atom, string]).
read_flag(back_quotes, V) :- memberchk(V, [codes, chars, string, symbol_char]).

same_option(F, O) :- functor(O, F, 1).

%   kb_op(+Priority, +Type, +Names): an operator of the program, in module kb.
kb_op(P, T, N) :-
    op_names(P, T, N, Ns),
    nb_getval(peirce_kb_read, read(Flags, K0)),
    length(Ns, Kn),
    K1 is K0 + Kn,
    (   K1 > 100 -> refuse("op/3: more than 100 operators declared in one file") ; true ),
    catch(op(P, T, kb:Ns), error(E, _),
          ( format(string(Msg), "op/3: ~q", [E]), refuse(Msg) )),
    nb_setval(peirce_kb_read, read(Flags, K1)).

%!  op_names(+Priority, +Type, +Names, -List)
%   An op/3 declaration of a program, checked (also by read_op/3 of control.pl): List its names.
op_names(P, T, N, Ns) :-
    (   integer(P), between(0, 1200, P) -> true
    ;   refuse("op/3: the priority must be an integer from 0 to 1200")
    ),
    (   atom(T), memberchk(T, [xfx, xfy, yfx, fy, fx, xf, yf]) -> true
    ;   refuse("op/3: the type must be one of xfx, xfy, yfx, fy, fx, xf, yf")
    ),
    (   atom(N) -> Ns = [N]
    ;   is_list(N), length(N, K), K =< 100, maplist(atom, N) -> Ns = N
    ;   refuse("op/3: the name must be an atom or a list of atoms")
    ),
    (   ( memberchk(',', Ns) ; memberchk('|', Ns) ; memberchk('[]', Ns) ; memberchk('{}', Ns) )
    ->  refuse("op/3: ',', '|', '[]' and '{}' cannot be made operators here")
    ;   true
    ).

kb_relation(N, A) :- atom(N), integer(A), A >= 0, \+ reserved(N, A, _).

kb_head(H) :- callable(H), functor(H, N, A), kb_relation(N, A).

kb_goal(G) :- var(G), !, fail.
kb_goal(G) :- kb_control(G, Gs), !, maplist(kb_goal, Gs).   % checked again by the sandbox
kb_goal(G) :-
    callable(G),
    functor(G, N, A),
    (   builtin(N, A) -> true
    ;   kb_relation(N, A) -> true
    ;   sandbox_safe(G)
    ).

%   A built-in that library(sandbox) takes for safe as called here; one whose goal argument is
%   not known yet (call(G), catch(G, _, _)) is taken, the sandbox checking it at each query.
sandbox_safe(G) :-
    catch(safe_goal(kb:G), E, true),
    (   var(E) -> true ; E = error(instantiation_error, _) ).

kb_control((A, B), [A, B]).      kb_control((A ; B), [A, B]).    kb_control((A -> B), [A, B]).
kb_control((A *-> B), [A, B]).   kb_control(\+ A, [A]).          kb_control(!, []).
kb_control(fail, []).            kb_control(false, []).          kb_control(findall(_, G, _), [G]).
kb_control(forall(A, B), [A, B]). kb_control(setof(_, G, _), [G]).  kb_control(bagof(_, G, _), [G]).
kb_control(_^G, [G]).            kb_control(aggregate_all(_, G, _), [G]).

left_out_term(T) :- left_out_term(T, "not a clause of a relation").

left_out_term(T, Why) :-
    (   nb_current(peirce_kb_at, File:Line) -> format(string(At), " (~w:~w)", [File, Line])
    ;   At = ""
    ),
    print_message(warning, format("peirce: left out, ~w: ~q~w", [Why, T, At])).

checked_query(Q, Q, B, B) :- Q == end_of_file, !.
checked_query(Q0, peirce_meta:checked(G), B0, B) :-
    (   catch(toplevel_variables:expand_query(Q0, Q1, B0, B), _, fail)
    ->  true
    ;   Q1 = Q0, B = B0
    ),
    expand_goal(kb:Q1, G),
    (   top_command(G) -> true ; safe_goal(G) ).

top_command(_:G) :- nonvar(G), top_command_(G).

top_command_(halt).
top_command_(halt(N)) :- integer(N).
top_command_(listing).
top_command_(listing(Spec)) :- ground(Spec), Spec \= _:_.

checked(G) :- call(G).

goal_not_run(_, Goal) :-
    write('{~@ not run: '),
    write_term(Goal, [quoted(true), max_depth(12)]),
    write('}').

write_without_code(_, Term, Options) :-
    (   is_list(Options)
    ->  include(option_without_code, Options, Safe)
    ;   Safe = [quoted(true)]
    ),
    write_term(Term, Safe).

%  The write_term/2 options that call no code (portray_goal/1 calls its closure, and
%  attributes(portray) the hooks of an attribute's module).
option_without_code(Option) :-
    compound(Option),
    compound_name_arity(Option, Name, 1),
    write_option(Name),
    \+ Option = attributes(portray).

write_option(quoted).          write_option(ignore_ops).      write_option(dotlists).
write_option(brace_terms).     write_option(no_lists).        write_option(max_depth).
write_option(numbervars).      write_option(portray).         write_option(portrayed).
write_option(spacing).         write_option(character_escapes).
write_option(character_escapes_unicode).                      write_option(cycles).
write_option(attributes).      write_option(variable_names).  write_option(partial).
write_option(fullstop).        write_option(nl).              write_option(priority).
write_option(module).          write_option(quote_non_ascii). write_option(back_quotes).

%  ------------------------------------------------------------------------------------------
%  Trusted programs: call_json(+Module, +Pred, +InJSON, +Inferences, +Seconds, +MiB, -OutJSON)
%  Out is ["ok", Result] (Result written as JSON in place), ["limit", Which], ["fail", _] or
%  ["error", Message].  The call and the writing of its result run under the limits (Which is
%  inferences, time or memory).

call_json(M, P, In, Inf, Secs, MiB, Out) :-
    catch(with_memory(MiB, false, call_json_(M, P, In, Inf, Secs, Out)), E, true),
    (   var(E) -> true ; error_reply(E, Reply), write_json(Reply, Out) ).

call_json_(M, P, In, Inf, Secs, Out) :-
    atom_json_dict(In, Dict, []),
    G =.. [P, Dict, Res],
    (   catch(call_with_time_limit(Secs, ( call_with_inference_limit(once(M:G), Inf, R),
                                           ( R == inference_limit_exceeded
                                           -> true
                                           ;  atom_json_dict(J, Res, [width(0)]) ) )),
              E, ( limit_status(E, S), S \== integer -> R = S ; throw(E) ))
    ->  true
    ;   R = failed
    ),
    (   R == failed
    ->  Out = "[\"fail\",\"failed\"]"
    ;   R == inference_limit_exceeded
    ->  Out = "[\"limit\",\"inferences\"]"
    ;   atom(R), R \== (!), R \== true
    ->  format(string(Out), "[\"limit\",\"~w\"]", [R])
    ;   atomics_to_string(['["ok",', J, ']'], Out)
    ).

%  ------------------------------------------------------------------------------------------
%  Loading a program as data, straight into a knowledge base's module.
%
%  load_text(+M, +How, +Text, +Base, +Builtins, +MaxClauses, +MiB, -Out): the terms of Text (How
%  = text) or of the file Text (How = file, read as UTF-8) are read
%  one at a time (bounded_read/3: read_term/3 parses, nothing read is ever called) and each
%  clause is asserted into M as its stored fact (see stored/4), its clause id Base plus the
%  character offset where the clause starts.  So Python keeps no copy of the clauses: a clause
%  is read again from the text, at the offset its id gives (first_item/2), when a proof or a
%  listing names it.  Everything parse_program/2 says of a clause holds here too (the same
%  clause_item/4 reads every term that is not a plain fact): directives and queries are
%  reported, never run; a syntax error or an unsupported construct is reported and the rest
%  read; a reserved relation is read as data and warned about.  A fact whose relation was seen
%  before and whose arguments are atoms and small numbers (most of a large knowledge base) is
%  stored without building its item.
%
%  Builtins is 1 when clause bodies may call the built-ins, 0 when a built-in's name is a
%  relation like any other.  Past MaxClauses clauses, or on any error (the memory limit of
%  MiB mebibytes on reading one term), every clause this load asserted is taken back.  Out is
%  ["ok", [Count, Relations, Items, Control, Rules]] (Control 1 when a clause holds a control
%  construct of control.pl; Rules the ids of the clauses with a body), Relations
%  [[MangledName, Arity, Added], ...], Items the diagnostics as parse_program/2 gives them (no
%  clause items; each warning once); or ["limit", Count] when there were more than MaxClauses
%  clauses; or ["error", Message].

load_text(M, How, Text, Base, Builtins, MaxClauses, MiB, Out) :-
    relation_counts(M, Before),
    St = load(0, -, MaxClauses, Builtins),
    retractall(load_item_(_, _)),
    retractall(load_warned_(_)),
    retractall(load_seen_(_, _)),
    retractall(load_control_),
    retractall(load_rule_(_)),
    catch(with_memory(MiB, false, load_stream(How, M, Text, Base, St)), E, true),
    (   retract(load_control_) -> Ctl = 1 ; Ctl = 0 ),
    findall(I, retract(load_item_(_, I)), Items),
    findall(R, retract(load_rule_(R)), Rules),
    retractall(load_warned_(_)),
    (   var(E)
    ->  arg(1, St, N),
        relation_counts(M, After),
        added_relations(After, Before, Rels),
        write_json([s(ok), [N, Rels, Items, Ctl, Rules]], Out)
    ;   unload_range(M, Base, 1 << 62),     % (no clause has a later id yet)
        (   E == peirce_too_many
        ->  arg(1, St, N), write_json([s(limit), N], Out)
        ;   error_reply(E, R), write_json(R, Out)
        )
    ).

load_stream(How, M, Text, Base, St) :-
    setup_call_cleanup(( open_text(How, Text, S), nb_setval(peirce_read_ops, []) ),
                       load_terms(S, M, Base, St),
                       ( close(S), nb_setval(peirce_read_ops, []) )).

open_text(text, Text, S) :- open_string(Text, S).
open_text(file, Path, S) :- open(Path, read, S, [encoding(utf8)]).

load_terms(S, M, Base, St) :-
    repeat,
    peirce_control:read_options(Opts),   % with the operators the text declared (control.pl)
    catch(( bounded_read(S, T, [variable_names(Vs), term_position(P)|Opts]),
            Item0 = term(T, Vs, P) ),
          error(syntax_error(What), Ctx),
          Item0 = syntax(What, Ctx)),
    (   Item0 = term(end_of_file, _, _)
    ->  !
    ;   load_item(Item0, S, M, Base, St),
        fail
    ).

load_item(term(T, _, P), _, M, Base, St) :-
    plain_fact(T, Fact0, Id),
    !,
    stream_position_data(char_count, P, B),
    Id is Base + B,
    counted(St),
    assertz(M:Fact0).
load_item(Item0, S, M, Base, St) :-
    character_count(S, End),
    item(Item0, End, Items, []),
    arg(4, St, Builtins),
    load_items(Items, M, Base, Builtins, St, Kept),
    forall(member(I, Kept), keep_item(I)),
    (   Item0 = term(T, _, _), callable(T), T \= (_ :- _), compound_name_arity(T, N, A),
        \+ load_seen_(N, A)
    ->  assertz(load_seen_(N, A))
    ;   true
    ).

%   The diagnostics of a load, in order (asserted: a load may have many); a warning once per
%   load (a relation SWI-Prolog reserves, defined by a hundred thousand facts, is said once).
:- dynamic load_item_/2, load_warned_/1, load_control_/0, load_rule_/1.

keep_item(I) :-
    (   I = [s(warning), _, _, _, _, s(W)|_]
    ->  \+ load_warned_(W),
        assertz(load_warned_(W))
    ;   true
    ),
    !,
    assertz(load_item_(x, I)).
keep_item(_).

counted(St) :-
    arg(1, St, N0),
    N is N0 + 1,
    arg(3, St, Max),
    (   N > Max -> nb_setarg(1, St, N0), throw(peirce_too_many) ; nb_setarg(1, St, N) ).

%   The clause items are asserted (and dropped from the diagnostics), the others kept.
load_items([], _, _, _, _, []).
load_items([I|Is], M, Base, Builtins, St, Kept) :-
    (   I = [s(clause), _, _, B, _, _, t(Head), Body]
    ->  Id is Base + B,
        counted(St),
        load_clause(M, Head, Body, Builtins, Id),
        (   Body == [] -> true ; assertz(load_rule_(Id)) ),
        Kept = Kept1
    ;   Kept = [I|Kept1]
    ),
    load_items(Is, M, Base, Builtins, St, Kept1).

load_clause(M, Head0, Body0, Builtins, Id) :-
    data_term(Head0, H),
    maplist(body_goal(Builtins), Body0, Gs),
    declare(M, Gs),
    stored(H, Id, Gs, Fact),
    assertz(M:Fact).

body_goal(_, t('c:$ctl'(Raw)), G) :- !,   % a control construct (control.pl), as read
    peirce_control:ctl_build(Raw, X),
    G = '$c'(X, Raw),
    (   load_control_ -> true ; assertz(load_control_) ).
body_goal(Builtins, t(L0), G) :-
    data_term(L0, L),
    (   compound(L) -> compound_name_arguments(L, N, As) ; N = L, As = [] ),
    (   sub_atom(N, 0, 2, _, 'b:')
    ->  sub_atom(N, 2, _, 0, B),
        (   Builtins == 1
        ->  G0 =.. [B|As], G = '$b'(G0)
        ;   atom_concat('p:', B, PN), G =.. [PN|As]
        )
    ;   G =.. [N|As]
    ).

%   data_term(+Term, -Data): Term as it is once it has been data (what a clause read by
%   parse_program/2 becomes on its way through Python): a string is an atom, an infinite or
%   undefined float the atom of its text, '[]' the empty list, the functor [] the atom '[]'.
data_term(X, X) :- var(X), !.
data_term(X, Y) :- string(X), !, atom_string(Y, X).
data_term(X, Y) :- float(X), ( X =:= inf ; X =:= -inf ; X =\= X ), !, format(atom(Y), "~w", [X]).
data_term('[]', Y) :- !, Y = [].
data_term(X, X) :- atomic(X), !.
data_term(X, Y) :-
    compound_name_arguments(X, N0, As),
    functor_text(N0, N),
    maplist(data_term, As, Bs),
    compound_name_arguments(Y, N, Bs).

%   plain_fact(+Term, -Stored, -Id): Term is a fact of a relation seen before and found plain
%   (not reserved, not a control construct, not a built-in), its arguments atoms and numbers
%   that stay as they are on the way through Python; Stored its stored fact with clause id Id.
plain_fact(T, Fact, Id) :-
    callable(T),
    compound_name_arity(T, N, A),  % fails for an atom: facts of arity 0 take the long way
    plain_relation(N, A, MN),
    T =.. [_|As],
    plain_args(As),
    stored(A, T, MN, Id, [], Fact).

plain_args([]).
plain_args([X|Xs]) :-
    (   atom(X) -> X \== '[]'
    ;   integer(X) -> X < 1 << 62, X > -(1 << 62)
    ;   float(X) -> X =:= X, X =\= inf, X =\= -inf
    ),
    plain_args(Xs).

:- dynamic plain_relation_/4, load_seen_/2.

%   A relation SWI-Prolog reserves (a built-in of its own, a hook) is plain too once this load
%   has read a clause of it the long way, which warned about it (see load_seen_/2).
plain_relation(N, A, MN) :-
    (   plain_relation_(N, A, MN0, Reserved)
    ->  MN = MN0,
        (   Reserved == true -> load_seen_(N, A) ; true )
    ;   atom(N),
        N \== (-),
        \+ control_name(N, A),
        \+ builtin(N, A),
        \+ shaped(N, A),
        atom_concat('p:', N, MN),
        (   reserved(N, A, _) -> Reserved = true ; Reserved = false ),
        assertz(plain_relation_(N, A, MN, Reserved)),
        Reserved == false
    ).

control_name(N, A) :- functor(G, N, A), control(G, _), !.

%   [[MangledName, Arity, Clauses], ...] of the relations of M (arity without the id and body).
relation_counts(M, Counts) :-
    findall(MN-A-C,
            ( current_predicate(M:MN/A2),
              functor(H, MN, A2),
              \+ predicate_property(M:H, imported_from(_)),
              predicate_property(M:H, number_of_clauses(C)),
              A is A2 - 2 ),
            Counts0),
    msort(Counts0, Counts).

added_relations(After, Before, Rels) :-
    findall([s(MN), A, D],
            ( member(MN-A-C, After),
              ( memberchk(MN-A-C0, Before) -> true ; C0 = 0 ),
              D is C - C0, D > 0 ),
            Rels).

%   unload_range(+M, +From, +To): every clause of M whose id is in From..To-1 goes.
unload_range(M, From, To) :-
    forall(( current_predicate(M:MN/A2),
             functor(H, MN, A2),
             \+ predicate_property(M:H, imported_from(_)),
             A2 >= 2,
             IdPos is A2 - 1 ),
           forall(( clause(M:H, true, Ref), arg(IdPos, H, Id), integer(Id),
                    Id >= From, Id < To ),
                  erase(Ref))).

%   first_item(+Text, -Item): the first item that reading Text gives (see parse_program/2):
%   a clause read again from where a loaded program holds it.
first_item(Text, Item) :-
    setup_call_cleanup(open_string(Text, S), first_item_(S, Item), close(S)).

first_item_(S, Item) :-
    catch(( bounded_read(S, T, [variable_names(Vs), term_position(P)]),
            Item0 = term(T, Vs, P) ),
          error(syntax_error(What), Ctx),
          Item0 = syntax(What, Ctx)),
    character_count(S, End),
    (   Item0 = term(end_of_file, _, _)
    ->  Item = []
    ;   item(Item0, End, [Item|_], _)
    ).

%  ------------------------------------------------------------------------------------------
%  Saving a knowledge base in SWI-Prolog's quick-load form (KnowledgeBase.save).
%
%  save_kb(+M, +Path, +Saved): the stored facts of M are written to Path as a module file of
%  the module Saved (each relation declared dynamic, every fact written quoted, so that any
%  atom reads back as the same atom), which qcompile/1 turns into Path's .qlf; the module it
%  loads while compiling is unloaded again.  restore_kb(+Qlf, +Saved) loads that .qlf (Python
%  has checked its SHA-256 against the one it wrote when saving: a .qlf runs its directives,
%  and only the ones written here may run); the knowledge base then lives in module Saved.

save_kb(M, Path, Saved) :-
    setup_call_cleanup(open(Path, write, S, [encoding(utf8)]),
                       write_kb(S, M, Saved),
                       close(S)),
    qcompile(Path),
    unload_file(Path).

write_kb(S, M, Saved) :-
    format(S, ":- module(~q, []).~n", [Saved]),
    forall(kb_predicate(M, _, N, A), format(S, ":- dynamic(~q).~n", [N/A])),
    Opts = [quoted(true), numbervars(false), fullstop(true), nl(true)],
    forall(( kb_predicate(M, H, _, _), clause(M:H, true) ), write_term(S, H, Opts)).

kb_predicate(M, H, N, A) :-
    current_predicate(M:N/A),
    functor(H, N, A),
    \+ predicate_property(M:H, imported_from(_)).

%   Done is 0 when the knowledge base is loaded already (and open), else 1.
restore_kb(Qlf, Saved, Done) :-
    (   current_module(Saved), kb_predicate(Saved, H, _, _), clause(Saved:H, _)
    ->  Done = 0
    ;   load_files(Qlf, [if(true)]),
        Done = 1
    ).
