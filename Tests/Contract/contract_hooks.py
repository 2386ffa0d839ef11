"""schemathesis hooks for scripts/contract-test (loaded through schemathesis.toml).

One rule of the contract spans two fields, which JSON Schema cannot state: `discountedPrice`
(the sale price) must not be above `price`. On an update that sends only one of them, the other
is the product's current one at the origin (documented on both operations; the gateway answers
400 otherwise, tested in GatewayModelsTests and IntegrationTests): on v2/v2b, which store a
discount amount, an update of the price alone keeps the sale price and so depends on it.
Generated bodies that break the rule, or whose outcome depends on the product's current prices,
are left out; nothing else is. GENERATION (set by scripts/contract-test) names the origin.
"""

import os

import schemathesis


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@schemathesis.hook
def filter_body(context, body):
    if not isinstance(body, dict):
        return True
    price, sale = body.get("price"), body.get("discountedPrice")
    if _number(price) and _number(sale):
        return sale <= price
    operation = getattr(context, "operation", None)
    if operation is None or operation.method.upper() != "PATCH":
        return True
    if _number(sale):
        return False
    return not (_number(price) and os.environ.get("GENERATION") in ("v2", "v2b"))
