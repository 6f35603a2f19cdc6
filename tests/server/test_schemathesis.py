"""Schemathesis sends requests generated from the OpenAPI schema, valid ones and invalid ones.

Every operation must answer as its schema says (status, content type, body)
and never with a server error. Bounded: a few examples per operation.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.core.result import Ok
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

from .conftest import Keys, auth

EXAMPLES = 12


def check_operation(operation: Any, mode: GenerationMode, key: str) -> None:
    # A file's type comes from its name, which a schema cannot constrain: an upload that
    # fits the schema may still be refused (415), so only that check is left out there.
    excluded = [positive_data_acceptance] if operation.label == "POST /api/documents" else []

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case: Any) -> None:
        case.call_and_validate(headers=auth(key), excluded_checks=excluded)

    if mode is GenerationMode.NEGATIVE:
        # An operation that takes nothing, or only free text, has no invalid input to send.
        with contextlib.suppress(Unsatisfiable):
            check()
    else:
        check()


@pytest.mark.usefixtures("documents")
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_the_api_keeps_to_its_schema(app: FastAPI, keys: Keys, mode: GenerationMode) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    results = list(schema.get_all_operations())
    operations = [result.ok() for result in results if isinstance(result, Ok)]
    assert len(operations) == len(results) >= 15
    for operation in operations:
        check_operation(operation, mode, keys.alice)
