#!/usr/bin/env python3
"""Generates the Python library's models and methods from the API's OpenAPI document.

Reads the document the app serves (``packages/client/openapi.json``, which ``npm run
client:types`` keeps equal to ``GET /v1/openapi.json``) and writes:

- ``src/lightbox/_generated/models.py``: a class per object schema (attribute access, nested
  objects as their models) and a ``Literal`` alias per string enum;
- ``src/lightbox/_generated/resources.py``: a sync and an async class per resource with one
  method per ``/v1`` operation: path parameters positional, query parameters and body fields as
  keyword arguments typed from their schemas, answers as models or pages.

The operations whose transport is not JSON (multipart and tus uploads, byte downloads, the
OpenAPI document itself) are written by hand in ``src/lightbox/resources.py`` and named in
HAND_WRITTEN below. ``--check`` writes nothing and exits 1 when a generated file differs from
what it would write, or when an operation of the document has no method (neither generated nor
hand-written): CI runs it, so the package never drifts from the API. Standard library only.

A new operation needs nothing here: it is generated under the resource of its path's first
segment (``/v1/account`` -> ``account``), named after its operationId in snake case unless NAMES
gives it a better name.
"""

from __future__ import annotations

import argparse
import ast
import json
import keyword
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REPO = ROOT.parent.parent
DOCUMENT = REPO / "packages" / "client" / "openapi.json"
MODELS = ROOT / "src" / "lightbox" / "_generated" / "models.py"
RESOURCES = ROOT / "src" / "lightbox" / "_generated" / "resources.py"
HAND = ROOT / "src" / "lightbox" / "resources.py"
CLIENT = ROOT / "src" / "lightbox" / "_client.py"

# operationId -> (resource, method): the TypeScript client's names. Anything absent gets
# (first path segment, snake_case(operationId)).
NAMES: dict[str, tuple[str, str]] = {
    "listListings": ("listings", "list"),
    "createListing": ("listings", "create"),
    "getListing": ("listings", "get"),
    "updateListing": ("listings", "update"),
    "deleteListing": ("listings", "delete"),
    "replaceClientLink": ("listings", "replace_client_link"),
    "updateClientLink": ("listings", "update_client_link"),
    "getListingFavorites": ("listings", "favorites"),
    "publishPropertyPage": ("listings", "publish_property_page"),
    "unpublishPropertyPage": ("listings", "unpublish_property_page"),
    # docs/api.md §28: share links, named as in the TypeScript client.
    "createShareLink": ("listings", "create_share_link"),
    "listShareLinks": ("listings", "list_share_links"),
    "getShareLink": ("listings", "get_share_link"),
    "updateShareLink": ("listings", "update_share_link"),
    "deleteShareLink": ("listings", "delete_share_link"),
    "rotateShareLink": ("listings", "rotate_share_link"),
    "notifyShareLink": ("listings", "notify_share_link"),
    "getShareLinkFavorites": ("listings", "share_link_favorites"),
    "listClients": ("clients", "list"),
    "createClient": ("clients", "create"),
    "getClient": ("clients", "get"),
    "updateClient": ("clients", "update"),
    "deleteClient": ("clients", "delete"),
    "listClientListings": ("clients", "listings"),
    "assignListing": ("clients", "assign"),
    "unassignListing": ("clients", "unassign"),
    "notifyClient": ("clients", "notify"),
    "rotateClientPortal": ("clients", "rotate_portal"),
    "listNotifications": ("notifications", "list"),
    "getNotification": ("notifications", "get"),
    "createWebhookEndpoint": ("webhook_endpoints", "create"),
    "listWebhookEndpoints": ("webhook_endpoints", "list"),
    "getWebhookEndpoint": ("webhook_endpoints", "get"),
    "updateWebhookEndpoint": ("webhook_endpoints", "update"),
    "deleteWebhookEndpoint": ("webhook_endpoints", "delete"),
    "rotateWebhookSecret": ("webhook_endpoints", "rotate_secret"),
    "testWebhookEndpoint": ("webhook_endpoints", "test"),
    "listWebhookDeliveries": ("webhook_endpoints", "deliveries"),
    "retryWebhookDelivery": ("webhook_endpoints", "retry"),
    "listEvents": ("events", "list"),
    "getEvent": ("events", "get"),
    "listMedia": ("media", "list"),
    "getMedia": ("media", "get"),
    "updateMedia": ("media", "update"),
    "deleteMedia": ("media", "delete"),
    "reorderMedia": ("media", "reorder"),
    "getSuggestedMediaOrder": ("media", "suggested_order"),
    # Section 20: the account behind the key, and test mode (as lb.account in TypeScript and PHP).
    "getAccount": ("account", "get"),
    "deleteTestData": ("account", "delete_test_data"),
    # docs/api.md §29: products and invoices, named as in the TypeScript client.
    "listProducts": ("products", "list"),
    "createProduct": ("products", "create"),
    "getProduct": ("products", "get"),
    "updateProduct": ("products", "update"),
    "deleteProduct": ("products", "delete"),
    "listInvoices": ("invoices", "list"),
    "createInvoice": ("invoices", "create"),
    "getInvoice": ("invoices", "get"),
    "updateInvoice": ("invoices", "update"),
    "deleteInvoice": ("invoices", "delete"),
    "issueInvoice": ("invoices", "issue"),
    "voidInvoice": ("invoices", "void"),
    "createPayment": ("invoices", "create_payment"),
    "listPayments": ("invoices", "list_payments"),
    # docs/api.md §31: MLS profiles, and a gallery's compliance with one.
    "listMlsProfiles": ("mls_profiles", "list"),
    "createMlsProfile": ("mls_profiles", "create"),
    "getMlsProfile": ("mls_profiles", "get"),
    "updateMlsProfile": ("mls_profiles", "update"),
    "deleteMlsProfile": ("mls_profiles", "delete"),
    "getListingCompliance": ("listings", "get_compliance"),
    # docs/api.md §33: one page of the RESO feed, as lb.reso.media in TypeScript and PHP.
    "resoMedia": ("reso", "media"),
}

# Operations written by hand: operationId -> "resource.method" (or "client.method" for a method
# of Lightbox itself). --check makes sure each exists, in the sync and the async class.
HAND_WRITTEN: dict[str, str] = {
    "getOpenApi": "client.openapi",
    "uploadMedia": "media.upload",
    "getMediaContent": "media.download",
    "getMediaVariant": "media.download_variant",
    "describeUploads": "media.describe_uploads",
    "createUpload": "media.upload_resumable",
    "getUpload-head": "media.upload_resumable",
    "appendUpload": "media.upload_resumable",
    "terminateUpload": "media.abandon_upload",
    "getInvoicePdf": "invoices.download_pdf",
    "getKitItem": "listings.download_kit_item",
}

HEADER = (
    "# Generated by packages/python/scripts/generate.py from the API's OpenAPI document.\n"
    "# Do not edit: change the routes' schemas, run `npm run client:types`, then the script.\n"
)
METHODS = ("get", "post", "put", "patch", "delete", "head", "options")


def snake(name: str) -> str:
    name = re.sub(r"[^0-9A-Za-z]+", "_", name)
    name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    return name.lower().strip("_")


def pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", name) if part)


def ident(name: str) -> str:
    name = snake(name)
    return name + "_" if keyword.iskeyword(name) or name in {"self"} else name


def singular(word: str) -> str:
    return word[:-1] if word.endswith("s") else word


class Generator:
    def __init__(self, document: dict[str, Any]) -> None:
        self.doc = document
        self.schemas: dict[str, Any] = document.get("components", {}).get("schemas", {})
        self.parameters: dict[str, Any] = document.get("components", {}).get("parameters", {})
        self.inline: list[tuple[str, dict[str, Any]]] = []  # nested classes made of inline objects
        self.enums: set[str] = set()

    # -- schemas ---------------------------------------------------------------------------

    def ref_name(self, ref: str) -> str:
        return ref.rsplit("/", 1)[-1]

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            schema = self.schemas[self.ref_name(schema["$ref"])]
        return schema

    def is_enum(self, schema: dict[str, Any]) -> bool:
        return schema.get("type") == "string" and "enum" in schema

    def py_type(self, schema: dict[str, Any], owner: str, field: str, *, input: bool = False) -> str:
        """The annotation for a schema; an inline object becomes a nested class OwnerField."""
        if "$ref" in schema:
            # An object a request sends (a gallery's tours) is given as a plain mapping, as JSON.
            target = self.resolve(schema)
            if input and (target.get("type") == "object" or "properties" in target):
                return "Mapping[str, Any]"
            name = self.ref_name(schema["$ref"])
            return name
        for key in ("anyOf", "oneOf"):
            if key in schema:
                parts = [self.py_type(s, owner, field, input=input) for s in schema[key]]
                return " | ".join(dict.fromkeys(parts))
        kind = schema.get("type")
        if isinstance(kind, list):
            parts = [self.py_type({**schema, "type": k}, owner, field, input=input) for k in kind]
            return " | ".join(dict.fromkeys(parts))
        if "enum" in schema and kind in ("string", None):
            return "Literal[" + ", ".join(json.dumps(v) for v in schema["enum"]) + "]"
        if "const" in schema:
            return f"Literal[{json.dumps(schema['const'])}]"
        if kind == "null":
            return "None"
        if kind == "string":
            return "str"
        if kind == "integer":
            return "int"
        if kind == "number":
            return "float"
        if kind == "boolean":
            return "bool"
        if kind == "array":
            item = self.py_type(schema.get("items", {}), owner, singular(field), input=input)
            return f"Sequence[{item}]" if input else f"list[{item}]"
        if kind == "object" or "properties" in schema:
            if input:
                return "Mapping[str, Any]"
            if schema.get("properties"):
                name = owner + pascal(field)
                self.inline.append((name, schema))
                return name
            return "LightboxObject"
        return "Any"

    def converter(self, schema: dict[str, Any], owner: str, field: str) -> str | None:
        """Code of the converter a field needs (a model or a list of them), or None."""
        if "$ref" in schema:
            target = self.resolve(schema)
            if target.get("type") == "object" or "properties" in target:
                return f"model({self.ref_name(schema['$ref'])})"
            return None
        for key in ("anyOf", "oneOf"):
            if key in schema:
                found = [c for s in schema[key] if (c := self.converter(s, owner, field))]
                if len(found) == 1:
                    return found[0]
                # Several object schemas (a photo's variants or a video's): the model that fits
                # the object's fields best, chosen when the answer arrives.
                if found and all(c.startswith("model(") for c in found):
                    return "one_of(" + ", ".join(c[len("model(") : -1] for c in found) + ")"
                return None
        kind = schema.get("type")
        if kind == "array":
            inner = self.converter(schema.get("items", {}), owner, singular(field))
            return f"list_of({inner})" if inner else None
        if kind == "object" or "properties" in schema:
            return f"model({owner + pascal(field)})" if schema.get("properties") else "model(LightboxObject)"
        return None

    def model_class(self, name: str, schema: dict[str, Any]) -> tuple[str, str]:
        """(class source, converters assignment) of one object schema."""
        lines = [f"class {name}(Model):"]
        doc = schema.get("description") or schema.get("title")
        if doc and doc != name:
            lines.append(f"    {json.dumps(doc)}")
            lines.append("")
        converters: list[str] = []
        props: dict[str, Any] = schema.get("properties", {})
        for prop, sub in props.items():
            if not prop.isidentifier() or keyword.iskeyword(prop):
                continue
            annotation = self.py_type(sub, name, prop)
            lines.append(f"    {prop}: {annotation}")
            desc = sub.get("description")
            if desc:
                lines.append(f"    {json.dumps(desc)}")
            conv = self.converter(sub, name, prop)
            if conv:
                converters.append(f"    {json.dumps(prop)}: {conv},")
        if not props:
            lines.append("    pass")
        assign = ""
        if converters:
            assign = f"{name}._converters = {{\n" + "\n".join(converters) + "\n}\n"
        return "\n".join(lines) + "\n", assign

    def models(self) -> str:
        aliases: list[str] = []
        classes: list[str] = []
        assigns: list[str] = []
        names: list[str] = []
        for name, schema in self.schemas.items():
            if self.is_enum(schema):
                self.enums.add(name)
                values = ", ".join(json.dumps(v) for v in schema["enum"])
                aliases.append(f"{name} = Literal[{values}]\n")
                names.append(name)
            elif schema.get("type") == "object" or "properties" in schema:
                cls, assign = self.model_class(name, schema)
                classes.append(cls)
                assigns.append(assign)
                names.append(name)
        done: set[str] = set()
        while self.inline:
            name, schema = self.inline.pop(0)
            if name in done:
                continue
            done.add(name)
            cls, assign = self.model_class(name, schema)
            classes.append(cls)
            assigns.append(assign)
            names.append(name)
        out = [
            HEADER,
            "from __future__ import annotations\n",
            "from typing import Literal\n",
            "from .._models import LightboxObject, Model, list_of, model, one_of\n",
            "__all__ = [\n" + "".join(f"    {json.dumps(n)},\n" for n in sorted(names)) + "]\n",
            "\n".join(aliases),
            "\n\n".join(classes),
            "\n".join(a for a in assigns if a),
        ]
        return "\n\n".join(part.rstrip("\n") for part in out if part) + "\n"

    # -- operations ------------------------------------------------------------------------

    def operations(self) -> list[dict[str, Any]]:
        ops: list[dict[str, Any]] = []
        for path, item in self.doc.get("paths", {}).items():
            if not path.startswith("/v1/"):
                continue
            for method in METHODS:
                op = item.get(method)
                if op is None:
                    continue
                params = [self.resolve_param(p) for p in item.get("parameters", []) + op.get("parameters", [])]
                ops.append({"path": path, "method": method.upper(), "op": op, "params": params})
        return ops

    def resolve_param(self, param: dict[str, Any]) -> dict[str, Any]:
        if "$ref" in param:
            return dict(self.parameters[self.ref_name(param["$ref"])])
        return param

    def name_of(self, path: str, op_id: str) -> tuple[str, str]:
        if op_id in NAMES:
            return NAMES[op_id]
        first = path.split("/")[2]
        return snake(first), snake(op_id)

    def method_source(self, entry: dict[str, Any], resource: str, method: str, is_async: bool) -> str:
        op = entry["op"]
        op_id = op["operationId"]
        path: str = entry["path"]
        segments = path.split("/")
        path_params = [p for p in entry["params"] if p.get("in") == "path"]
        query_params = [p for p in entry["params"] if p.get("in") == "query"]
        conditional = any(p.get("in") == "header" and p["name"].lower() == "if-none-match" for p in entry["params"])

        # Path parameters, positional: `id` of an outer resource is named after it (listing_id).
        py_path = {}
        for p in path_params:
            name = p["name"]
            if name == "id" and snake(segments[2]) != resource:
                name = singular(segments[2]) + "_id"
            py_path[p["name"]] = ident(name)
        url = path
        for raw, py in py_path.items():
            url = url.replace("{" + raw + "}", "{_seg(" + py + ")}")
        url_code = f'f"{url}"' if py_path else json.dumps(url)

        args = ["self"] + [f"{py_path[p['name']]}: str" for p in path_params]
        kwargs: list[str] = []
        query_items: list[str] = []
        for p in query_params:
            py = ident(p["name"])
            kwargs.append(f"{py}: {self.py_type(p.get('schema', {}), '', py, input=True)} | None = None")
            query_items.append(f"{json.dumps(p['name'])}: {py}")

        body_items: list[str] = []
        content = op.get("requestBody", {}).get("content", {})
        if "application/json" in content:
            schema = self.resolve(content["application/json"].get("schema", {}))
            required = set(schema.get("required", []))
            props: dict[str, Any] = schema.get("properties", {})
            for prop in sorted(props, key=lambda k: k not in required):
                py = ident(prop)
                annotation = self.py_type(props[prop], "", prop, input=True)
                if prop in required:
                    kwargs.append(f"{py}: {annotation}")
                else:
                    kwargs.append(f"{py}: {annotation} | NotGiven = NOT_GIVEN")
                body_items.append(f"{json.dumps(prop)}: {py}")
        # Required keyword arguments first, for readability.
        kwargs.sort(key=lambda k: "=" in k)

        # The answer: a model, a page of models, or nothing.
        responses = op.get("responses", {})
        success = next((s for s in ("200", "201", "202", "204") if s in responses), None)
        answer = "None"
        item_model = None
        body_schema = None
        if success is not None and success != "204":
            body_schema = responses[success].get("content", {}).get("application/json", {}).get("schema")
        if body_schema is not None and "$ref" in body_schema:
            answer = self.ref_name(body_schema["$ref"])
            resolved = self.resolve(body_schema)
            props = resolved.get("properties", {})
            if "pagination" in props and "$ref" in props.get("data", {}).get("items", {}):
                item_model = self.ref_name(props["data"]["items"]["$ref"])
                answer = f"{'AsyncPage' if is_async else 'SyncPage'}[{item_model}]"

        options = "request_options: RequestOptions | None = None"
        query_code = "{" + ", ".join(query_items) + "}" if query_items else "None"
        body_code = "_body({" + ", ".join(body_items) + "})" if body_items else None
        summary = op.get("summary", "").rstrip(".")
        doc = f'        """{summary} (``{entry["method"]} {path}``, {op_id})."""'
        define = "async def" if is_async else "def"
        wait = "await " if is_async else ""
        sig_head = ", ".join([*args, "*"])  # request_options at least is keyword-only

        def signature(extra: list[str], returns: str) -> str:
            params = ", ".join([sig_head, *kwargs, *extra, options])
            return f"    {define} {method}({params}) -> {returns}:"

        lines: list[str] = []
        if entry["method"] == "GET" and conditional and answer != "None":
            lines.append("    @overload")
            lines.append(signature(["if_none_match: None = None"], answer) + " ...")
            lines.append("    @overload")
            lines.append(signature(["if_none_match: str"], f"{answer} | NotModified") + " ...")
            lines.append(signature(["if_none_match: str | None = None"], f"{answer} | NotModified"))
            lines.append(doc)
            if item_model:
                call = (
                    f"{wait}self._http.get_page({url_code}, item={item_model}, query={query_code}, "
                    "options=request_options, if_none_match=if_none_match)"
                )
            else:
                call = (
                    f"{wait}self._http.get_model({url_code}, cast={answer}, query={query_code}, "
                    "options=request_options, if_none_match=if_none_match)"
                )
        else:
            lines.append(signature([], answer))
            lines.append(doc)
            method_code = json.dumps(entry["method"])
            body_arg = f", body={body_code}" if body_code else ""
            if answer == "None":
                call = (
                    f"{wait}self._http.request_none({method_code}, {url_code}, query={query_code}"
                    f"{body_arg}, options=request_options)"
                )
            elif item_model:
                call = (
                    f"{wait}self._http.request_page({method_code}, {url_code}, item={item_model}, "
                    f"query={query_code}{body_arg}, options=request_options)"
                )
            else:
                call = (
                    f"{wait}self._http.request_model({method_code}, {url_code}, cast={answer}, "
                    f"query={query_code}{body_arg}, options=request_options)"
                )
        lines.append(f"        return {call}")
        return "\n".join(lines) + "\n"

    def resources(self) -> tuple[str, dict[str, list[str]]]:
        grouped: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        for entry in self.operations():
            op_id = entry["op"]["operationId"]
            if op_id in HAND_WRITTEN:
                continue
            resource, method = self.name_of(entry["path"], op_id)
            grouped.setdefault(resource, []).append((method, entry))
        used_models: set[str] = set()
        classes: list[str] = []
        for is_async in (False, True):
            for resource in sorted(grouped):
                cls = ("Async" if is_async else "") + pascal(resource) + "Resource"
                base = "AsyncAPIResource" if is_async else "SyncAPIResource"
                methods = [self.method_source(e, resource, m, is_async) for m, e in grouped[resource]]
                body = "\n".join(methods)
                used_models.update(re.findall(r"\b([A-Z][A-Za-z]+)\b", body))
                classes.append(f"class {cls}({base}):\n" + body)
        for is_async in (False, True):
            prefix = "Async" if is_async else ""
            http = "AsyncHTTP" if is_async else "SyncHTTP"
            lines = [
                f"class {prefix}GeneratedResources:",
                f'    """The resources of {prefix or "a sync "}client, one attribute each (hand-written ones replace some)."""',
                "",
            ]
            lines += [f"    {r}: {prefix}{pascal(r)}Resource" for r in sorted(grouped)]
            lines += ["", f"    def __init__(self, http: {http}) -> None:"]
            lines += [f"        self.{r} = {prefix}{pascal(r)}Resource(http)" for r in sorted(grouped)]
            classes.append("\n".join(lines) + "\n")
        models_all = {n for n in self.schemas}
        imports = sorted(used_models & models_all)
        out = [
            HEADER,
            "from __future__ import annotations\n",
            "from collections.abc import Mapping, Sequence\n"
            "from typing import TYPE_CHECKING, Any, Literal, overload\n",
            "from .._models import NOT_GIVEN, NotGiven, NotModified, RequestOptions\n"
            "from .._pagination import AsyncPage, SyncPage\n"
            "from .._resource import AsyncAPIResource, SyncAPIResource, _body, _seg\n"
            "from .models import (\n" + "".join(f"    {n},\n" for n in imports) + ")\n\n"
            "if TYPE_CHECKING:\n"
            "    from .._core import AsyncHTTP, SyncHTTP\n",
            "__all__ = [\n"
            + "".join(
                f'    "{("Async" if a else "") + pascal(r)}Resource",\n' for a in (False, True) for r in sorted(grouped)
            )
            + '    "GeneratedResources",\n    "AsyncGeneratedResources",\n'
            + "]\n",
            "\n\n".join(classes),
        ]
        text = "\n\n".join(part.rstrip("\n") for part in out) + "\n"
        return text, {r: [m for m, _ in ms] for r, ms in grouped.items()}


def hand_written_methods() -> dict[str, set[str]]:
    """class name -> method names defined in resources.py and _client.py (read with ast)."""
    found: dict[str, set[str]] = {}
    for file in (HAND, CLIENT):
        if not file.exists():
            continue
        tree = ast.parse(file.read_text())
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                found[node.name] = {
                    n.name for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                }
    return found


def completeness(gen: Generator, generated: dict[str, list[str]]) -> list[str]:
    problems: list[str] = []
    hand = hand_written_methods()
    for entry in gen.operations():
        op_id = entry["op"].get("operationId")
        if not op_id:
            problems.append(f"{entry['method']} {entry['path']} has no operationId")
            continue
        if op_id not in HAND_WRITTEN:
            resource, method = gen.name_of(entry["path"], op_id)
            if method not in generated.get(resource, []):
                problems.append(f"{op_id} has no generated method")
            continue
        resource, method = HAND_WRITTEN[op_id].split(".")
        if resource == "client":
            classes = ["Lightbox", "AsyncLightbox"]
        else:
            classes = [pascal(resource), "Async" + pascal(resource)]
        for cls in classes:
            if method not in hand.get(cls, set()):
                problems.append(f"{op_id} ({entry['method']} {entry['path']}) has no method {cls}.{method}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 on drift")
    parser.add_argument("--document", type=Path, default=DOCUMENT, help="the OpenAPI document (JSON)")
    args = parser.parse_args()
    document = json.loads(args.document.read_text())
    gen = Generator(document)
    models = gen.models()
    resources, generated = gen.resources()
    stale = 0
    for file, text in ((MODELS, models), (RESOURCES, resources)):
        current = file.read_text() if file.exists() else None
        if current == text:
            continue
        rel = file.relative_to(REPO)
        if args.check:
            stale += 1
            print(f"{rel} is out of date with {args.document.name}: run scripts/generate.py", file=sys.stderr)
        else:
            file.write_text(text)
            print(f"wrote {rel}")
    problems = completeness(gen, generated)
    for problem in problems:
        print(f"incomplete: {problem}", file=sys.stderr)
    if stale or problems:
        return 1
    count = sum(len(v) for v in generated.values())
    print(f"the Python library matches the OpenAPI document ({count} generated methods, {len(HAND_WRITTEN)} hand-written)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
