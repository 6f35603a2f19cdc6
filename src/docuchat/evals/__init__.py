"""Evaluating retrieval on labelled data (BEIR-format collections)."""
