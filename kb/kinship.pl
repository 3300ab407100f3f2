% Kinship: a small family and the rules that relate its members.
% Loaded by `peirce demo` and usable in `peirce console`; read as data (directives never run).
% expect: grandparent(X, ada) -> X = grace ; X = henry
% expect: ancestor(grace, ada) -> true (two hops, through the recursive rule)
% expect: sibling(ada, alan) -> true
% expect: -parent(ada, grace) -> true (strong negation: stated)
% expect: -parent(barbara, claude) -> true (strong negation: derived, no one parents an ancestor)
% expect: parent(alan, ada) -> not proved (open world)

parent(grace, claude).
parent(henry, claude).
parent(claude, ada).
parent(claude, alan).
parent(alan, barbara).
-parent(ada, grace).

grandparent(X, Z) :- parent(X, Y), parent(Y, Z).
ancestor(X, Y) :- parent(X, Y).
ancestor(X, Z) :- parent(X, Y), ancestor(Y, Z).
sibling(X, Y) :- parent(P, X), parent(P, Y), X \= Y.
-parent(X, Y) :- ancestor(Y, X).
