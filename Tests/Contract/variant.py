"""Writes the copy of openapi.yaml that schemathesis runs against one origin generation.

openapi.yaml is one contract for every generation. Where a generation answers a valid
request with a documented refusal, or where a generator cannot make valid input, the copy
leaves that input out, and each removal below says why. Nothing else changes: every other
operation, parameter, body and response is tested as written.

    python variant.py openapi.yaml v1|v2|v2b out.yaml
"""

import sys

import yaml


def main() -> None:
    source, generation, target = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(source, encoding="utf-8") as handle:
        document = yaml.safe_load(handle)
    paths = document["paths"]
    schemas = document["components"]["schemas"]

    # multipart/form-data writes: their image parts must be JPEG or PNG bytes, which no
    # schema can describe for a generator (it sends random bytes, refused with 400 as
    # documented). Multipart writes are covered by the Swift integration tests
    # (IntegrationTests.WritePath), byte for byte.
    for path, method in (("/v1/products", "post"), ("/v1/products/{id}", "patch")):
        paths[path][method]["requestBody"]["content"].pop("multipart/form-data")

    if generation in ("v1", "v2"):
        # These origins cannot search: `q` is answered 501 "Search is not supported by this
        # origin." by design (issue 12), checked by IntegrationTests.Generations.
        parameters = paths["/v1/products"]["get"]["parameters"]
        paths["/v1/products"]["get"]["parameters"] = [p for p in parameters if p.get("name") != "q"]

    if generation in ("v2", "v2b"):
        # These origins take no images on update: the gateway refuses such an update (400,
        # documented on PATCH), checked by IntegrationTests.GenerationWrites.
        schemas["ProductUpdate"]["properties"]["images"] = False

    with open(target, "w", encoding="utf-8") as handle:
        yaml.safe_dump(document, handle, allow_unicode=True, sort_keys=False)


if __name__ == "__main__":
    main()
