"""Writes the copy of openapi.yaml that schemathesis runs against one origin generation.

openapi.yaml is one contract for every generation. Where a generation answers a valid
request with a documented refusal, or where a generator cannot make valid input, the copy
leaves that input out, and each removal below says why. Nothing else changes: every other
operation, parameter, body and response is tested as written.

    python variant.py openapi.yaml v1|v2|v2b out.yaml
"""

import sys

import yaml

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
JPEG = (
    "/9j/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9j"
    "QjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAAIAAgDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEA"
    "AAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJico"
    "KSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT"
    "1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEE"
    "BSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOE"
    "hYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDz+iii"
    "gD//2Q=="
)


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

    # JSON image data: the gateway decodes every upload (it renders each again for the
    # origin), and a generator cannot make decodable image bytes from a pattern: bytes that
    # only start like a PNG are refused with 400 as documented. The copy offers two real
    # images instead, a 1 × 1 PNG and an 8 × 8 JPEG; other formats, sizes and refusals are
    # covered by the Swift integration tests (IntegrationTests.WritePath, uploads).
    schemas["ImageUpload"]["properties"]["data"] = {"type": "string", "enum": [PNG, JPEG]}

    if generation in ("v1", "v2"):
        # These origins cannot search: `q` is answered 501 "Search is not supported by this
        # origin." by design (issue 12), checked by IntegrationTests.Generations.
        parameters = paths["/v1/products"]["get"]["parameters"]
        paths["/v1/products"]["get"]["parameters"] = [p for p in parameters if p.get("name") != "q"]

    if generation in ("v2", "v2b"):
        # These origins take no images on update: the gateway refuses such an update (400,
        # documented on PATCH), checked by IntegrationTests.GenerationWrites.
        schemas["ProductUpdate"]["properties"]["images"] = False

    # This run's gateway has no sign-in, so every write needs its `password` (and a delete its
    # body), as `WritePassword` says; the contract lists them optional because with sign-in and
    # --vendor-credentials-file a v2/v2b write may leave them out (IntegrationTests.VendorCredentials).
    # The copy makes them required again, as they are here.
    for name in ("ProductCreate", "ProductCreateForm"):
        schemas[name]["required"].append("password")
    for name in ("ProductUpdate", "ProductUpdateForm", "ProductDelete"):
        schemas[name]["required"] = ["password"]
    for name in ("ProductUpdate", "ProductUpdateForm"):
        schemas[name]["minProperties"] = 2
    paths["/v1/products/{id}"]["delete"]["requestBody"]["required"] = True

    with open(target, "w", encoding="utf-8") as handle:
        yaml.safe_dump(document, handle, allow_unicode=True, sort_keys=False)


if __name__ == "__main__":
    main()
