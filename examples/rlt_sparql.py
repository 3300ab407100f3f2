"""Check a Reasoning Logic Tree, ask Z3 for a repair, export it to RDF and query it with SPARQL.

Run: python examples/rlt_sparql.py
"""

from peirce.engine.rdf import NS, serialize, to_rdf
from peirce.engine.smt import repair_rlt
from peirce.engine.structure import check_structure
from peirce.translators.dot_rlt import read_rlt

REPLY = """Here is the reasoning tree:
```dot
digraph seawater {
  s1 [label="(3,0,0) Seawater holds 140 times more dissolved carbon than air."];
  s2 [label="(4,0,0) Seawater absorbs about 0.4 gigatons of CO2 per year."];
  k  [label="(0,0,0) A medium that concentrates and absorbs carbon is a good capture source."];
  c  [label="(0,0,0) Seawater is a good source for carbon capture."];
  p  [label="(5,0,0) PEC devices convert dissolved carbon using sunlight."];
  idea [label="(0,0,0) We propose PEC devices that capture carbon from seawater."];
  s1 -> k [label="induction-case"];
  s2 -> k [label="induction-case"];          // no induction-common: a format error
  k -> c [label="deduction-rule"];
  s2 -> c [label="deduction-case"];
  c -> idea [label="abduction-phenomenon"];
  p -> idea [label="deduction-knowledge"];   // not one of the six edge types
}
```"""

rlt = read_rlt(REPLY)
report = check_structure(rlt)
for step in report.steps:
    print(f"{step.conclusion:>5}: {step.status.value:<18} {', '.join(step.reasons)}")

repair = repair_rlt(rlt)
for r in repair.relabelings:
    print(f"Z3 suggests {r.edge}: {r.old} => {r.new}")

graph = to_rdf(rlt, report, repair=repair)
query = f"""
PREFIX peirce: <{NS}>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?conclusion ?premise ?written ?suggested WHERE {{
  ?step peirce:structuralStatus "format_error" ; peirce:conclusion/rdfs:label ?conclusion ;
        peirce:hasPremiseLink ?link .
  ?link peirce:premise/rdfs:label ?premise .
  OPTIONAL {{ ?link peirce:writtenLabel ?written }}
  OPTIONAL {{ ?link peirce:suggestedRole ?role BIND(STRAFTER(STR(?role), "#") AS ?suggested) }}
}} ORDER BY ?conclusion ?premise
"""
print("SPARQL: premises of malformed steps")
for row in graph.query(query):
    print("  ", *(str(v) if v is not None else "-" for v in row))
print(serialize(graph, "turtle").splitlines()[0])
