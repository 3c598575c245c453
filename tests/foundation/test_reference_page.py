"""docs/reference.md is generated from the code (evalkit/reference.py): GRPOConfig's fields, the
server's bodies, the code task formats and the plugin's signatures never drift from what runs."""

from evalkit.reference import PAGE, page


def test_the_reference_page_is_what_the_code_says():
    assert PAGE.read_text() == page(), "docs/reference.md differs from the code: run `python -m evalkit.reference`"


def test_every_grpo_config_field_is_on_the_page():
    import dataclasses

    from evalkit.grpo import GRPOConfig

    text = PAGE.read_text()
    assert all(f"| `{f.name}` |" in text for f in dataclasses.fields(GRPOConfig))
