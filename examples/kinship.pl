% A family for the Prolog console:
%
%     peirce console examples/kinship.pl
%     ?- grandparent(X, dan).           every answer, with the proof that supports it
%     ?- sibling(dan, Who).             a rule with a built-in (\=) in its body
%     ?- :ask parent(dan, ann).         True / False / Unknown under strong negation
%     ?- ancestor(ann, Y), Y \= bob.    conjunctions and pure built-ins
%
%     peirce console --swipl examples/kinship.pl    the same clauses in SWI-Prolog's own top level
%
% The file is read as data: the directive below is reported and skipped, never run.
% Strong negation is written -p(...): a negated fact is stated, not inferred from failure.
%
% expect: grandparent(X, dan) -> X = ann
% expect: grandparent(ann, Who) -> Who = dan ; Who = eve
% expect: sibling(dan, eve) -> true
% expect: parent(dan, ann) -> False (-parent(dan, ann) is stated)
% expect: parent(eve, ann) -> False (derived: no one parents an ancestor)
% expect: parent(fay, dan) -> Unknown (open world: neither side is provable)

:- initialization(main).

parent(ann, bob).
parent(bob, dan).
parent(bob, eve).
parent(cat, fay).
-parent(dan, ann).

grandparent(X, Z) :- parent(X, Y), parent(Y, Z).
sibling(X, Y) :- parent(P, X), parent(P, Y), X \= Y.
ancestor(X, Y) :- parent(X, Y).
ancestor(X, Z) :- parent(X, Y), ancestor(Y, Z).
-parent(X, Y) :- ancestor(Y, X).
