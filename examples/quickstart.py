"""Check a chain of reasoning and answer a question, offline."""

import peirce

context = "Every wumpus is an impus. Impuses are not sour. Max is a wumpus."

report = peirce.check_proof(context, ["Max is an impus.", "Max is not sour.", "Max is a yumpus."])
for step in report.steps:
    print(f"{step.index}. {step.status.value:<12} {step.text}  {step.reason}")

result = peirce.ask(context, "Is the following statement true or false? Max is sour.")
print(result.answer.value)
if result.proof is not None:
    print(result.proof.render())
