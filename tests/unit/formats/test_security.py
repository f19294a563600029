"""spec.security.seccompProfile: the two types Pod Security's restricted level accepts
(RuntimeDefault, Localhost: policy/check_seccompProfile_restricted.go), and localhostProfile
with Localhost alone, as the API server's validation requires it (ValidateSeccompProfileField)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from mpigen.formats.security import SeccompProfile, Security


@pytest.mark.parametrize("given", [{"type": "RuntimeDefault"}, {"type": "Localhost", "localhostProfile": "a.json"}])
def test_what_restricted_accepts_is_taken(given):
    assert Security(seccompProfile=given).seccompProfile == SeccompProfile(**given)


@pytest.mark.parametrize("given", [{"type": "Unconfined"}, {"type": "Localhost"},
                                   {"type": "RuntimeDefault", "localhostProfile": "a.json"},
                                   {"type": "Localhost", "localhostProfile": "/abs.json"}])
def test_anything_else_is_refused(given):
    with pytest.raises(ValidationError):
        Security(seccompProfile=given)
