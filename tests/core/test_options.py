"""Run options are defined once (core.options.RunOptions): a field added there is in the API's
request model, the EDESK_ settings, the CLI flags and the stored form, with the same bounds."""

from __future__ import annotations

import argparse
import json
from typing import Annotated

import pytest
from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.api.schemas import RunCreate, RunOptionsIn
from app.cli.options import OptionError, add_flags, resolve
from app.settings import Settings
from app.storage import RunInput
from core.options import RunOptions, Surface, comma_items, inapplicable, request_model


class Extended(RunOptions):
    """RunOptions with one more field, written once."""

    novelty_level: Annotated[int, Surface(pipelines=("findebate",), metavar="N")] = Field(
        default=7, ge=1, le=9, description="a brand-new knob"
    )


def test_a_new_field_appears_in_all_four(monkeypatch: pytest.MonkeyPatch) -> None:
    # 1. the API request model: optional, same bounds and description
    api = request_model(Extended)
    assert api.model_validate({"novelty_level": 3}).novelty_level == 3
    assert api.model_validate({}).novelty_level is None
    with pytest.raises(ValidationError, match="less than or equal to 9"):
        api.model_validate({"novelty_level": 10})
    prop = api.model_json_schema()["properties"]["novelty_level"]
    assert prop["description"] == "a brand-new knob"
    assert {"type": "integer", "minimum": 1, "maximum": 9} in prop["anyOf"]

    # 2. the settings: EDESK_NOVELTY_LEVEL is its default, bounds enforced
    class ExtendedSettings(BaseSettings, Extended):
        model_config = SettingsConfigDict(env_prefix="EDESK_", frozen=False)

    monkeypatch.setenv("EDESK_NOVELTY_LEVEL", "5")
    assert ExtendedSettings().novelty_level == 5
    monkeypatch.setenv("EDESK_NOVELTY_LEVEL", "0")
    with pytest.raises(ValidationError, match="novelty_level"):
        ExtendedSettings()

    # 3. the CLI: --novelty-level N, refused out of bounds and for other pipelines
    parser = argparse.ArgumentParser()
    add_flags(parser, Extended)
    assert "--novelty-level" in parser.format_help()
    args = parser.parse_args(["--novelty-level", "4"])
    resolved = resolve(args, "findebate", Extended(), Extended)
    assert isinstance(resolved, Extended) and resolved.novelty_level == 4
    with pytest.raises(OptionError, match="--novelty-level applies to --pipeline findebate"):
        resolve(args, "zero_shot", Extended(), Extended)
    with pytest.raises(OptionError, match="--novelty-level: must be <= 9"):
        resolve(parser.parse_args(["--novelty-level", "99"]), "findebate", Extended(), Extended)

    # 4. the stored form: typed, and read back as it was written
    stored = Extended(novelty_level=2).model_dump_json()
    assert Extended.model_validate_json(stored).novelty_level == 2


def test_the_real_surfaces_are_derived_from_run_options() -> None:
    """Every RunOptions field is in the request model, the settings and (unless marked
    API-only) the CLI; the run input stores RunOptions itself."""
    names = set(RunOptions.model_fields)
    assert set(RunOptionsIn.model_fields) == names
    assert names <= set(Settings.model_fields)
    assert RunCreate.model_fields["options"].annotation is RunOptionsIn
    assert RunInput.model_fields["options"].annotation is RunOptions
    parser = argparse.ArgumentParser()
    add_flags(parser)
    flags = {a.dest.removeprefix("opt_") for a in parser._actions if a.dest.startswith("opt_")}
    assert flags == names - {"stream_tokens"}
    for name, field in RunOptions.model_fields.items():  # same bounds in the API's schema
        schema = json.dumps(RunOptionsIn.model_json_schema()["properties"][name])
        for bound in ("minimum", "maximum", "minItems", "maxItems"):
            own = json.dumps(RunOptions.model_json_schema()["properties"][name])
            assert (bound in schema) == (bound in own), (name, bound)
        assert RunOptionsIn.model_fields[name].description == field.description


def test_settings_defaults_become_run_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDESK_CHUNK_WORDS", "200")
    monkeypatch.setenv("EDESK_FACT_CHECK", "false")
    defaults = Settings().run_defaults()
    assert (defaults.chunk_words, defaults.fact_check) == (200, False)
    assert defaults.merged({"chunk_words": 60}).chunk_words == 60
    monkeypatch.setenv("EDESK_CHUNK_WORDS", "5")  # the same bound as the API's
    with pytest.raises(ValidationError, match="chunk_words"):
        Settings()


def test_a_variant_names_its_pipeline_and_options() -> None:
    from core.options import RunOptions, named_variants, parse_variant

    s1 = parse_variant("adversarial@S1")
    assert (s1.pipeline, s1.options) == ("adversarial", (("sas_system", "S1"),))
    assert s1.apply(RunOptions(fact_check=False)) == RunOptions(fact_check=False, sas_system="S1")
    wf = parse_variant("writer_feedback@advanced_feedback")
    assert wf.options == (("writer_variant", "advanced_feedback"),)
    rounds = parse_variant("findebate@rounds=2&retriever=dense")
    assert rounds.options == (("debate_rounds", 2), ("retriever", "dense"))  # typed, validated
    assert parse_variant("conversation@rounds=2").options == (("conversation_rounds", 2),)
    assert parse_variant("findebate").options == ()
    for bad in ("adversarial@S9", "findebate@rounds=9", "findebate@nope=1", "zero_shot@S1", "x@"):
        with pytest.raises(ValueError):
            parse_variant(bad)
    with pytest.raises(ValueError, match="debate_rounds applies to findebate only"):
        parse_variant("zero_shot@debate_rounds=2")  # the API's and the CLI's rule
    names = named_variants(["adversarial", "findebate"])
    assert names == ["adversarial", "adversarial@S1", "adversarial@S2", "adversarial@S3",
                     "adversarial@S4", "findebate"]  # fmt: skip


def test_comma_list_is_plain_text_for_settings_and_flags_but_an_array_in_the_api() -> None:
    """`CommaList` reads `a, b` where text is all there is (environment, .env, flags); the API's
    request model keeps JSON arrays strict."""
    members = ("simple_writer", "advanced_writer")
    assert RunOptions(ensemble_variants=" simple_writer, advanced_writer,").ensemble_variants == (  # type: ignore[arg-type]
        members
    )
    assert RunOptionsIn.model_validate({"ensemble_variants": list(members)}).ensemble_variants
    with pytest.raises(ValidationError, match="ensemble_variants"):
        RunOptionsIn.model_validate({"ensemble_variants": "simple_writer,advanced_writer"})
    assert comma_items(" a, b,,c ,") == ("a", "b", "c")


def test_one_rule_names_the_options_a_pipeline_does_not_take() -> None:
    """`inapplicable`: what the API (422), the LangGraph routes, the CLI (exit 2) and eval
    variants refuse; options without pipelines apply to every one."""
    given = ["debate_rounds", "sas_system", "chunk_words", "stream_tokens"]
    assert inapplicable("zero_shot", given) == {
        "debate_rounds": ("findebate",),
        "sas_system": ("adversarial",),
    }
    assert inapplicable("findebate", given) == {"sas_system": ("adversarial",)}
    assert inapplicable("findebate", ["novelty_level"], Extended) == {}
    assert inapplicable("facts", ["novelty_level"], Extended) == {"novelty_level": ("findebate",)}
