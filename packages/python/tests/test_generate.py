"""The generator: the package matches the document, and a new operation gets a method."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "generate.py"


def _generate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_check_passes_on_the_current_document() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "matches" in done.stdout


def _with_account(document: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(document)
    doc["components"]["schemas"]["Account"] = {
        "type": "object",
        "required": ["id", "name", "livemode", "key"],
        "properties": {
            "id": {"type": "string"},
            "name": {"type": "string"},
            "livemode": {"type": "boolean"},
            "key": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "scope": {"type": "string", "enum": ["full", "read_only"]}},
            },
        },
    }
    doc["paths"]["/v1/account"] = {
        "get": {
            "operationId": "getAccount",
            "summary": "The account behind the key",
            "parameters": [{"$ref": "#/components/parameters/IfNoneMatch"}],
            "responses": {
                "200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Account"}}}}
            },
        }
    }
    return doc


def test_check_fails_when_the_document_drifts(tmp_path: Path) -> None:
    generate = _generate()
    drifted = tmp_path / "openapi.json"
    drifted.write_text(json.dumps(_with_account(json.loads(generate.DOCUMENT.read_text()))))
    done = subprocess.run([sys.executable, str(SCRIPT), "--check", "--document", str(drifted)], capture_output=True, text=True)
    assert done.returncode == 1
    assert "out of date" in done.stderr


def test_a_new_operation_is_generated_sync_and_async() -> None:
    generate = _generate()
    gen = generate.Generator(_with_account(json.loads(generate.DOCUMENT.read_text())))
    models = gen.models()
    resources, methods = gen.resources()
    assert methods["account"] == ["get", "delete_test_data"]
    assert "class Account(Model):" in models and "class AccountKey(Model):" in models
    assert "class AccountResource(SyncAPIResource):" in resources
    assert "class AsyncAccountResource(AsyncAPIResource):" in resources
    assert "        self.account = AccountResource(http)" in resources
    compile(models, "models.py", "exec")
    compile(resources, "resources.py", "exec")
    assert generate.completeness(gen, methods) == []


def test_a_hand_written_operation_without_its_method_is_reported() -> None:
    generate = _generate()
    gen = generate.Generator(json.loads(generate.DOCUMENT.read_text()))
    _, methods = gen.resources()
    generate.HAND_WRITTEN["uploadMedia"] = "media.upload_that_does_not_exist"
    try:
        problems = generate.completeness(gen, methods)
    finally:
        generate.HAND_WRITTEN["uploadMedia"] = "media.upload"
    assert any("uploadMedia" in p and "Media.upload_that_does_not_exist" in p for p in problems)


def test_every_field_typed_as_a_model_is_converted_to_it() -> None:
    """A field annotated with a model (alone, in a list or in a union) has a converter, so the
    answer's object arrives as that model, not as a dict (Media.variants once did)."""
    import re

    import lightbox._generated.models as generated
    from lightbox import LightboxObject, Model

    models = {n for n, v in vars(generated).items() if isinstance(v, type) and issubclass(v, Model)}
    missing = []
    for name in sorted(models):
        cls = getattr(generated, name)
        for field, annotation in vars(cls).get("__annotations__", {}).items():
            named = set(re.findall(r"\b[A-Z]\w+\b", str(annotation))) & (models | {LightboxObject.__name__})
            if named and field not in cls._converters:
                missing.append(f"{name}.{field}: {annotation}")
    assert missing == []
    variants = generated.Media.from_dict({"variants": {"status": "ready", "poster": None, "web": None}}).variants
    assert isinstance(variants, generated.MediaVideoVariants)
    photo = generated.Media.from_dict({"variants": {"status": "pending", "thumb": None, "large": None, "mls": None}})
    assert isinstance(photo.variants, generated.MediaVariants)
