"""A design's content hash, made in one place and the same wherever it is read."""

import pytest

from models.design import design_content_sha256, design_identity, load_design
from models.identity import design_sha256

#: The stock design's content hash as it was before the hash was made in one place:
#: caches on users' disks (hit maps, design searches) are keyed by it, so a change
#: here throws them all away. Change it only with the design or the normalised text,
#: knowingly.
STOCK_SHA256 = "de1e7c557159e27bf5aeec90ab83202852adddbd3410ca4613fcf4ed34d8d38c"


def test_the_stock_design_keeps_its_content_hash():
    assert design_content_sha256(load_design("stock")) == STOCK_SHA256


@pytest.mark.parametrize("name", ["stock", "wide-piggy"])
def test_every_reader_of_a_design_identity_gets_the_same_hash(name):
    expected = design_content_sha256(load_design(name))
    assert design_sha256(name) == expected
    assert design_identity(name)["design_sha256"] == expected
