"""The offline model: a deterministic, extractive stand-in for a language model.

It speaks the research agent's tool protocol through the runtime like any model and reads
nothing but the request: the question (the last user message that is not one of the
runtime's own prompts), the earlier questions of the conversation, the results of this
turn's ``search_docs`` and ``open_citation`` calls, and whether tools are offered. Each
call decides one step from the transcript alone:

1. search the question (as asked when it has an embedder, else its key words); a
   comparison searches once per subject ("Acme …", "Brightline …");
2. search once more with other words if that found nothing, or if no result shows the
   question's names and numbers;
3. open the most promising passages (up to three, in one response; the runtime keeps only
   the last three opened in full), for a comparison the best of each subject's search;
4. answer each part of the question (``research.questions``: a two-part question has
   two, a comparison one per subject) with the best-ranked sentence that *addresses* it
   (``research.relevance``: it names the part's subject and states a fact of the kind
   asked for), quoted verbatim with its ``[N]`` after "From the documents (extractive):";
   say which parts the documents do not answer, or "The documents do not say." when they
   answer none.

Without tools (forced synthesis, the pipeline's answer step) it answers from whatever
passages the transcript holds.

Modules, in the order a request flows through them: ``transcript`` (reading the request),
``question`` (a part of the question as the ranking reads it), ``planning`` (the next tool
calls), ``evidence`` (the sentences read, ranked by registered signs), ``answer`` (quoting
or declining), ``model`` (the model interface). What a question asks, what a sentence
states, and whether it addresses the question belong to the research layer
(``research.questions``, ``research.kinds``, ``research.relevance``), which judges every
model's citations the same way.
"""

from docuchat.research.offline.answer import ABSTAIN, PREFIX
from docuchat.research.offline.model import OfflineModel

__all__ = ["ABSTAIN", "PREFIX", "OfflineModel"]
