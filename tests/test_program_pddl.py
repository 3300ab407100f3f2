"""SayCan goals: grounded, planned by pyperplan, checked by simulating the plan."""

from __future__ import annotations

import pytest

from peirce.pipelines.math_program import ProgramStatus, run_program
from peirce.pipelines.program_pddl import holds, plan_valid, plan_words, read_sexpr, simulate

pytest.importorskip("pyperplan")

BRING_SALTY = """(:goal
    ; something salty for the user
    (exists (?s - snack)
        (and (is-salty ?s) (at ?s user))))
"""


def test_a_goal_is_planned_and_the_plan_reaches_it() -> None:
    run = run_program(BRING_SALTY, dataset="saycan", question="Bring me something salty.")
    assert run.status is ProgramStatus.OK, run.reason
    words = str(run.answer).splitlines()
    assert words[0].startswith("1. find(") and words[-1].endswith("done().")
    assert "put(" in str(run.answer) and "find(user)" in str(run.answer)
    assert plan_valid(run.value, BRING_SALTY)  # type: ignore[arg-type]


def test_visiting_keeps_every_go() -> None:
    goal = "(:goal (forall (?l - location) (visited ?l)))"
    run = run_program(goal, dataset="saycan", question="Visit all the locations.")
    assert run.status is ProgramStatus.OK, run.reason
    assert str(run.answer).count("find(") == 5  # every location but where it starts


def test_a_special_task_starts_from_its_own_state() -> None:
    goal = "(:goal\n  ; let go\n  (not (inventory me coke)))"
    run = run_program(goal, dataset="saycan", question="Let go of the coke.")
    assert run.status is ProgramStatus.OK, run.reason
    assert "put(coke)" in str(run.answer)


@pytest.mark.parametrize(
    ("goal", "status"),
    [
        ("(:goal (at coke user)", ProgramStatus.UNREADABLE),
        ("(:goal (is-soda coke))", ProgramStatus.UNREADABLE),
        ("(:goal (exists (?i - gadget) (at ?i user)))", ProgramStatus.UNREADABLE),
        ("(:goal (at orange orange))", ProgramStatus.ERROR),
        ("(:goal (and (not (at pepsi table)) (at pepsi table)))", ProgramStatus.ERROR),
        (
            "(:goal (exists (?a - item ?b - item ?c - item) "
            "(or (at ?a user) (at ?b user) (at ?c user))))",
            ProgramStatus.TOO_COMPLEX,
        ),
    ],
)
def test_goals_without_a_plan_say_why(goal: str, status: ProgramStatus) -> None:
    run = run_program(goal, dataset="saycan", question="?")
    assert run.status is status
    assert run.reason


def test_simulation_refuses_a_step_that_does_not_apply() -> None:
    start = {("at", "me", "initial"), ("is-empty-handed", "me"), ("at", "coke", "initial")}
    assert simulate(["(pick me coke initial)"], start) is None  # not found first
    end = simulate(["(find me coke)", "(pick me coke initial)", "(go me initial user)",
                    "(put me coke user)"], start)  # fmt: skip
    assert end is not None and ("at", "coke", "user") in end
    assert holds(read_sexpr("(:goal (exists (?d - drink) (at ?d user)))"), end)
    assert not holds(read_sexpr("(:goal (forall (?d - soda) (at ?d user)))"), end)


def test_plan_words_follow_saycan() -> None:
    plan = ["(find me seven-up)", "(pick me seven-up initial)", "(go me initial table)",
            "(go me table user)", "(put me seven-up user)", "(reach-goal-0)"]  # fmt: skip
    assert plan_words(plan, "(:goal (at seven-up user))") == (
        "1. find(7up)\n2. pick(7up)\n3. find(user)\n4. put(7up)\n5. done().\n"
    )
