"""A custom gate: a FEE_JUSTIFICATION claim must state the fee amount of the fee node it
cites. Used by the README: ``verity verify ... --gates examples.fee_gates:fee_amount``."""

import re

import verity

FEE = re.compile(r"(\$[\d,]+\.\d\d) (?:annual )?fee")


@verity.custom_gate("fee", codes={"fee.amount_missing": "the claim does not state the fee"})
def fee_amount(claim, graph):
    if claim.type != "FEE_JUSTIFICATION":
        return
    for node_id in claim.cited_evidence_ids:
        node = graph.nodes.get(node_id)
        fee = FEE.search(node.statement) if node and node.type == "FEE_BREAK_EVEN" else None
        if fee and fee.group(1) not in claim.numbers:
            yield verity.Finding(
                "fee.amount_missing",
                f"a fee justification must state the {fee.group(1)} fee of {node_id}",
                expected=fee.group(1),
                actual=list(claim.numbers),
            )


fees = verity.extend("paper", [fee_amount], name="paper+fee")
