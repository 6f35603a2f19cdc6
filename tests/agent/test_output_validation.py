"""Output tool: schema + custom validators, bounded retries, reflection with submit."""

from __future__ import annotations

from pydantic import BaseModel

from docuchat.agent import Agent, Limits, OutputTool
from docuchat.agent.callbacks import Callbacks
from docuchat.models import ScriptedModel
from docuchat.models.base import ToolResultsMessage, UserMessage
from docuchat.models.scripted import call, reply


class Answer(BaseModel):
    answer: str
    confidence: float


def _no_shouting(output: Answer) -> str | None:
    return "answer must not be all caps" if output.answer.isupper() else None


OUTPUT = OutputTool(Answer, validators=[_no_shouting])


def test_valid_output_ends_the_run_with_the_model() -> None:
    model = ScriptedModel([call("final_result", answer="Paris", confidence=0.9)])
    result = Agent(model, output=OUTPUT).run_sync("Capital?")
    assert result.outcome == "answered"
    assert result.output == Answer(answer="Paris", confidence=0.9)


def test_failed_validation_is_fed_back_and_a_new_attempt_starts() -> None:
    model = ScriptedModel(
        [
            call("final_result", answer="PARIS", confidence=0.9),
            call("final_result", answer="Paris", confidence="high"),
            call("final_result", answer="Paris", confidence=0.9),
        ]
    )
    attempts: list[int] = []
    failures: list[str] = []
    callbacks = Callbacks(
        on_attempt_start=lambda e: attempts.append(e.attempt),
        on_validation_failure=lambda e: failures.append(e.error),
    )
    result = Agent(model, output=OUTPUT, callbacks=callbacks).run_sync("Capital?")
    assert result.outcome == "answered" and result.output.answer == "Paris"
    assert attempts == [1, 2, 3]
    assert failures[0] == "answer must not be all caps"
    assert "confidence" in failures[1]
    feedback = model.requests[1].messages[-1]
    assert isinstance(feedback, UserMessage)
    assert "failed validation (attempt 1 of 3)" in feedback.content
    assert "all caps" in feedback.content
    # the rejected call still has a tool result, so the transcript is valid
    rejected = model.requests[1].messages[-2]
    assert isinstance(rejected, ToolResultsMessage) and rejected.results[0].is_error
    assert len(result.usage.per_attempt()) == 3


def test_validation_attempts_are_bounded() -> None:
    model = ScriptedModel([call("final_result", answer="NO", confidence=1)] * 2)
    limits = Limits(max_validation_attempts=2)
    result = Agent(model, output=OUTPUT, limits=limits).run_sync("q")
    assert result.outcome == "max_validation_attempts"
    assert result.error_code == "VALIDATION_FAILED"
    assert "all caps" in result.reason
    model.assert_all_consumed()


def test_plain_text_when_output_tool_required_is_a_failed_attempt() -> None:
    model = ScriptedModel([reply("Paris"), call("final_result", answer="Paris", confidence=1)])
    result = Agent(model, output=OUTPUT).run_sync("q")
    assert result.outcome == "answered"
    failure = next(e for e in result.events if e.type == "validation_failed")
    assert "final_result" in failure.error


def test_reflection_shows_preview_then_submit_finalises_last_output() -> None:
    previews: list[str] = []

    def preview(output: Answer) -> str:
        text = f"PREVIEW: {output.answer} ({output.confidence:.0%})"
        previews.append(text)
        return text

    reflective = OutputTool(Answer, validators=[_no_shouting], reflection=preview)
    model = ScriptedModel(
        [
            call("final_result", answer="Paris?", confidence=0.5),
            call("final_result", answer="Paris", confidence=0.95),
            call("submit"),
        ]
    )
    result = Agent(model, output=reflective).run_sync("q")
    assert result.outcome == "answered"
    assert result.output == Answer(answer="Paris", confidence=0.95)
    assert previews == ["PREVIEW: Paris? (50%)", "PREVIEW: Paris (95%)"]
    assert "submit" in [t.name for t in model.requests[0].tools]
    second_view = model.requests[1].messages[-1]
    assert isinstance(second_view, ToolResultsMessage)
    assert second_view.results[0].content == "PREVIEW: Paris? (50%)"


def test_submit_before_output_is_reported_to_the_model() -> None:
    reflective = OutputTool(Answer, reflection=lambda o: o.answer)
    model = ScriptedModel(
        [call("submit"), call("final_result", answer="x", confidence=1), call("submit")]
    )
    result = Agent(model, output=reflective).run_sync("q")
    assert result.outcome == "answered"
    first = next(e for e in result.events if e.type == "tool_call_finished")
    assert first.error_code == "SUBMIT_BEFORE_OUTPUT" and not first.ok


def test_submit_of_invalid_output_starts_a_new_attempt() -> None:
    reflective = OutputTool(Answer, validators=[_no_shouting], reflection=lambda o: o.answer)
    model = ScriptedModel(
        [
            call("final_result", answer="LOUD", confidence=1),
            call("submit"),
            call("final_result", answer="quiet", confidence=1),
            call("submit"),
        ]
    )
    result = Agent(model, output=reflective).run_sync("q")
    assert result.output == Answer(answer="quiet", confidence=1)
    assert [e.attempt for e in result.events if e.type == "attempt_started"] == [1, 2]
