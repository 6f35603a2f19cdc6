"""What the routes share: the store, the accounts, the model, the runs, the upload queue.

Built once per process. The model is shared by every run: adapters keep no
state per call, and the HTTP ones share one keep-alive connection pool. What
another process of the deployment must see (jobs, cancel requests, who is
alive) goes through ``coordination``, in the same database.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from docuchat.agent import Tool
from docuchat.embeddings import Embedder, get_embedder
from docuchat.errors import ConfigError
from docuchat.models import Model
from docuchat.models.http_pool import HTTPPool
from docuchat.research import ResearchAgent
from docuchat.research.agent import Mode
from docuchat.research.configured import configured_agent
from docuchat.research.detail import ResearchControls, check_model_allowed
from docuchat.research.models import ChosenModel, choose_research_model, research_model
from docuchat.search import HybridSearcher
from docuchat.server.ingestion import IngestionWorker
from docuchat.server.pages import PageImages
from docuchat.server.presence import Presence, this_process
from docuchat.server.runs import RunRegistry
from docuchat.server.schemas import ResearchRequest
from docuchat.server.settings import ServerSettings
from docuchat.store import Store, open_store
from docuchat.store.accounts import Accounts, open_accounts
from docuchat.store.coordination import (
    CancelRequest,
    Coordination,
    ProcessInfo,
    SpooledFile,
    UploadJob,
    open_coordination,
)


@dataclass(slots=True)
class Ingestion:
    """A process's part in the upload queue: its presence and its ingestion threads."""

    coordination: Coordination
    presence: Presence
    worker: IngestionWorker

    def close(self) -> None:
        self.worker.close()
        self.presence.stop()
        self.coordination.close()


def start_ingestion(
    settings: ServerSettings,
    store: Store,
    embedder: Embedder | None,
    process: ProcessInfo,
    *,
    on_cancel: Callable[[CancelRequest], bool] = lambda _request: False,
) -> Ingestion:
    """Join the deployment on the settings' database as ``process`` and take upload jobs on
    ``settings.ingest_threads`` threads; ``on_cancel`` cancels a run of this process."""
    coordination = open_coordination(settings.db_path, dead_after=settings.dead_after)
    worker = IngestionWorker(
        store,
        coordination,
        embedder,
        worker=process.id,
        threads=settings.ingest_threads,
        max_file_bytes=settings.max_file_bytes,
        poll_seconds=settings.heartbeat_seconds,
    )
    presence = Presence(
        coordination,
        process,
        heartbeat_seconds=settings.heartbeat_seconds,
        on_cancel=on_cancel,
        on_jobs=worker.wake,
    )
    presence.start()
    worker.start()
    return Ingestion(coordination, presence, worker)


@dataclass(slots=True)
class Services:
    settings: ServerSettings
    store: Store
    accounts: Accounts
    searcher: HybridSearcher
    model: Model
    runs: RunRegistry
    ingestion: Ingestion
    http: HTTPPool
    pages: PageImages
    mcp_tools: tuple[Tool, ...] = field(default=())
    """The configured MCP servers' tools, once the app has started them."""
    model_choice: str = ""
    """Why the configured model: what ``auto`` found at start-up."""

    _models: dict[str, Model] = field(default_factory=dict)

    @property
    def coordination(self) -> Coordination:
        return self.ingestion.coordination

    @property
    def process_id(self) -> str:
        return self.ingestion.presence.process.id

    def agent(
        self,
        owner: str,
        mode: Mode,
        research: ResearchRequest | None = None,
        model_spec: str | None = None,
    ) -> ResearchAgent:
        """The agent for one question, its limits capped at the server's maxima;
        ``ConfigError`` for a model this server does not offer."""
        asked = research or ResearchRequest()
        config = self.settings.research
        if model_spec not in (None, self.settings.model) and config.models_allowed is None:
            raise ConfigError(
                "this server does not let a question choose its model"
                " (its [research] models_allowed is not set)"
            )
        controls = ResearchControls.of(config).overridden(
            detail=asked.detail, tools=asked.tools, limits=asked.limits
        )
        spec = model_spec or self.settings.model
        return configured_agent(
            self.searcher,
            self._model(spec),
            owner,
            model_spec=spec,
            mode=mode,
            controls=controls,
            config=config,
            maxima=self.settings.maxima,
            model_timeout=self.settings.model_timeout,
            extra_tools=self.mcp_tools,
            context_window=self.settings.context_window,
            model_choice=self.model_choice if spec == self.settings.model else "",
        )

    def submit_upload(self, owner: str, files: Sequence[SpooledFile]) -> UploadJob:
        """Queue accepted files as one job (``QueueFull`` if the queue has no room for them)."""
        job = self.coordination.submit(
            owner,
            files,
            worker=self.process_id,
            max_queued_bytes=self.settings.max_queued_bytes,
        )
        self.ingestion.worker.wake()
        return job

    def _model(self, spec: str) -> Model:
        """The configured model, or another allowed one, built once and shared by runs."""
        if spec == self.settings.model:
            return self.model
        check_model_allowed(spec, self.settings.research)  # before building anything
        if spec not in self._models:
            embedder = self.searcher.embedder
            self._models[spec] = research_model(spec, http_client=self.http, embedder=embedder)
        return self._models[spec]

    async def aclose(self) -> None:
        await self.runs.shutdown()
        self.ingestion.close()
        self.pages.close()
        await self.http.aclose()
        self.accounts.close()
        self.store.close()


def open_services(settings: ServerSettings, *, model: Model | None = None) -> Services:
    """Open the database, build the model and embedder the settings name, join the deployment.

    ``model`` replaces the configured one (tests pass a scripted model).
    """
    check_model_allowed(settings.model, settings.research)
    store = open_store(settings.db_path)
    accounts = open_accounts(settings.db_path)
    # One vector space, two variants where auto has a choice: uploads embedded for
    # throughput, questions for the latency of one text.
    embedder = get_embedder(settings.embedder, purpose="queries")
    http = HTTPPool()
    chosen = (
        ChosenModel(model, "")
        if model is not None
        else choose_research_model(settings.model, http_client=http, embedder=embedder)
    )
    process = this_process(ingests=settings.ingest_threads > 0)
    runs = RunRegistry(process.id)

    def cancel(request: CancelRequest) -> bool:
        return runs.cancel(request.owner, request.run_id, request.reason)

    return Services(
        settings=settings,
        store=store,
        accounts=accounts,
        searcher=HybridSearcher(store, embedder),
        model=chosen.model,
        runs=runs,
        ingestion=start_ingestion(
            settings,
            store,
            get_embedder(settings.embedder, purpose="documents"),
            process,
            on_cancel=cancel,
        ),
        http=http,
        pages=PageImages(store, settings.home / "cache" / "pages"),
        model_choice=chosen.choice,
    )
