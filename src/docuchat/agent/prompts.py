"""The runtime's own words to the model."""

SYNTHESIS_PROMPT = (
    "You can no longer call tools. Write your final answer now, using only what is above.\n"
    "- ONLY report results you actually received from tool calls above.\n"
    "- For anything you did not receive a result for, say 'not processed'.\n"
    "- If no tool results are visible above, say that you were unable to complete the task."
)

EMPTY_RESPONSE_NUDGE = (
    "Your last response was empty. Either call one of the tools or give your final answer."
)

REPEATED_CALL_NOTE = (
    "[note: you already made this exact call; this is its earlier result. "
    "Do not repeat calls: use the result or try something different.]"
)


def validation_feedback(error: str, attempt: int, attempts: int, output_tool: str) -> str:
    return (
        f"Your output failed validation (attempt {attempt} of {attempts}): {error}\n"
        f"Fix the problem and call `{output_tool}` again."
    )


def output_tool_required(output_tool: str) -> str:
    return f"Respond by calling the `{output_tool}` tool with your final output."
