"""docuchat: ask questions of your own documents, with answers you can trust.

Two layers in one package:

- :mod:`docuchat.agent` and :mod:`docuchat.models`: a bounded, observable
  tool-calling runtime with adapters for real model providers.
- The document research assistant built on it (corpus, store, research agent,
  CLI and server).
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
