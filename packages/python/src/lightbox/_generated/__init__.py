"""Code generated from the OpenAPI document by scripts/generate.py."""
