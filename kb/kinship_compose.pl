% Kinship composition: if A is R1 of B and B is R2 of C, what is A of C?
% Used to run CLUTRR's relation programs (Faithful-CoT): a program states relation(A, B) = R
% for a chain of people and its answer is the chain composed, from its last relation back.
% Read as data (directives never run); asked through peirce's Prolog core.
%
% A relation name is a role (gender-neutral) and the gender of the person it names:
% relation(Name, Role, Gender).  compose/3 composes two names through the rule of their roles
% and names the result with the gender of the first person.
%
% expect: compose(father, son, X) -> X = brother     (A is B's son, B is C's father)
% expect: compose(daughter, father, X) -> X = husband (A is B's father, B is C's daughter)
% expect: compose(wife, husband, X) -> X = self
% expect: compose(uncle, sister, X) -> not proved    (no rule: a sibling of a pibling is open)

relation(son, child, male).                      relation(daughter, child, female).
relation(father, parent, male).                  relation(mother, parent, female).
relation(brother, sibling, male).                relation(sister, sibling, female).
relation(husband, spouse, male).                 relation(wife, spouse, female).
relation(grandson, grandchild, male).            relation(granddaughter, grandchild, female).
relation(grandfather, grandparent, male).        relation(grandmother, grandparent, female).
relation(uncle, pibling, male).                  relation(aunt, pibling, female).
relation(nephew, nibling, male).                 relation(niece, nibling, female).
relation('son-in-law', child_in_law, male).      relation('daughter-in-law', child_in_law, female).
relation('father-in-law', parent_in_law, male).  relation('mother-in-law', parent_in_law, female).
relation('brother-in-law', sibling_in_law, male).
relation('sister-in-law', sibling_in_law, female).
relation(cousin, cousin, any).
relation(self, self, any).

% rule(RoleOfBtoC, RoleOfAtoB, RoleOfAtoC)
% B is C's child:
rule(child, child, grandchild).          % my child's child is my grandchild
rule(child, spouse, child_in_law).       % my child's spouse is my child-in-law
rule(child, sibling, child).             % my child's sibling is my child
rule(child, parent, spouse).             % my child's other parent is my spouse
rule(child, grandparent, parent).        % my child's grandparent is my parent
rule(child, pibling, sibling).           % my child's uncle or aunt is my sibling
% B is C's parent:
rule(parent, parent, grandparent).
rule(parent, sibling, pibling).
rule(parent, child, sibling).            % my parent's child is my sibling
rule(parent, spouse, parent).            % my parent's spouse is my parent
rule(parent, grandchild, child).         % read: my parent's grandchild is their child's child
rule(parent, parent_in_law, grandparent).
rule(parent, child_in_law, spouse).
% B is C's sibling:
rule(sibling, sibling, sibling).
rule(sibling, parent, parent).
rule(sibling, child, nibling).
rule(sibling, spouse, sibling_in_law).
rule(sibling, grandparent, grandparent).
rule(sibling, pibling, pibling).
rule(sibling, nibling, nibling).
% B is C's spouse:
rule(spouse, spouse, self).
rule(spouse, child, child).
rule(spouse, parent, parent_in_law).
rule(spouse, sibling, sibling_in_law).
rule(spouse, parent_in_law, parent).     % my spouse's parent-in-law is my parent
rule(spouse, child_in_law, child_in_law).
rule(spouse, grandchild, grandchild).
% B is C's grandchild:
rule(grandchild, sibling, grandchild).
rule(grandchild, parent, child).
rule(grandchild, grandparent, spouse).
rule(grandchild, pibling, child).
% B is C's grandparent:
rule(grandparent, child, parent).
rule(grandparent, spouse, grandparent).
% B is C's uncle or aunt:
rule(pibling, sibling, pibling).
rule(pibling, spouse, pibling).
rule(pibling, parent, grandparent).
rule(pibling, child, cousin).
% B is C's nephew or niece:
rule(nibling, sibling, nibling).
rule(nibling, parent, sibling).
rule(nibling, grandparent, parent).
rule(nibling, pibling, sibling).
% B is C's cousin:
rule(cousin, sibling, sibling).
rule(cousin, parent, pibling).
rule(cousin, grandparent, grandparent).
rule(cousin, pibling, pibling).
% B is C's child-in-law, parent-in-law or sibling-in-law:
rule(child_in_law, child, grandchild).
rule(parent_in_law, child, spouse).
rule(parent_in_law, spouse, parent_in_law).
rule(sibling_in_law, sibling, sibling_in_law).
rule(sibling_in_law, spouse, sibling_in_law).
rule(sibling_in_law, parent, parent_in_law).
rule(sibling_in_law, child, nibling).

% named(Role, Gender, Name): the name of a role for a person of a gender.
named(Role, Gender, Name) :- relation(Name, Role, Gender).
named(Role, _, Name) :- relation(Name, Role, any).

% compose(NameOfBtoC, NameOfAtoB, NameOfAtoC)
compose(self, Name, Name) :- relation(Name, _, _).
compose(BC, AB, AC) :-
    relation(BC, R1, _), relation(AB, R2, Gender), rule(R1, R2, R3), named(R3, Gender, AC).
